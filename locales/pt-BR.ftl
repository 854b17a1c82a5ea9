# As mensagens do snip em português do Brasil (as mesmas de locales/en.ftl).

## Layout

skip-to-content = Pular para o conteúdo
new-paste = Novo paste
account = Conta
my-pastes = Meus pastes
sign-in = Entrar
sign-out = Sair
switch-team-to = Mudar para
switch-team = Mudar
no-team-header = Você não pertence a nenhuma equipe neste servidor: pode fazer apenas o que qualquer pessoa sem conta pode.
theme = Tema
theme-auto = Automático
theme-light = Claro
theme-dark = Escuro
language = Idioma
language-change = Alterar
third-party-licences = licenças de terceiros

## Tamanhos e datas

size-bytes = { $n ->
    [one] { $n } byte
   *[other] { $n } bytes
}
size-kib = { $n } KiB
size-mib = { $n } MiB
size-gib = { $n } GiB
size-tib = { $n } TiB
time-utc = { $date } { $time } UTC

## Páginas de erro

error-mistyped-id = Este link parece ter sido copiado errado
error-mistyped-id-text = O último caractere de todo link do snip confere os outros, e neste ele não bate: provavelmente um caractere foi alterado, perdido ou trocado ao copiar. Compare o link com o original.
error-paste-not-found = Paste não encontrado
error-paste-not-found-text = Não há nenhum paste neste endereço. Ele pode ter expirado, sido excluído ou (excluir após a leitura) já ter sido lido.
error-page-not-found = Página não encontrada
error-page-not-found-text = Não há nenhuma página neste endereço. Confira o link que você seguiu ou crie um novo paste.
error-sign-in-needed = É preciso entrar
error-sign-in-needed-text = Este servidor exige aqui um tenant conectado.
error-sign-in-with-token = Entrar com um token de API
error-too-large = Grande demais
error-too-large-text = O paste é maior do que este servidor aceita.
error-slow-down = Mais devagar
error-slow-down-text = Chegaram muitas solicitações suas em pouco tempo. Aguarde um momento e tente de novo.
error-other = Erro { $status }
create-new-paste = Criar um novo paste

## Novo paste

lifetime-never = Nunca
lifetime-seconds = { $n ->
    [one] { $n } segundo
   *[other] { $n } segundos
}
lifetime-minutes = { $n ->
    [one] { $n } minuto
   *[other] { $n } minutos
}
lifetime-hours = { $n ->
    [one] { $n } hora
   *[other] { $n } horas
}
lifetime-days = { $n ->
    [one] { $n } dia
   *[other] { $n } dias
}
lifetime-weeks = { $n ->
    [one] { $n } semana
   *[other] { $n } semanas
}
lifetime-years = { $n ->
    [one] { $n } ano
   *[other] { $n } anos
}
new-read-only = Este navegador entrou com um token somente leitura: ele pode ler e listar os pastes do tenant, mas não criá-los.
new-sign-in-needed = Este servidor só aceita pastes de usuários conectados.
new-no-team = Você não pertence a nenhuma equipe neste servidor, e ele só aceita pastes de equipes.
files = Arquivos
remove-this-file = Remover este arquivo
paste-content = Conteúdo do paste
editor-placeholder = Cole ou digite aqui, ou solte um arquivo
attached = Anexo:
remove = Remover
option-language = Linguagem
auto-detect = Detectar automaticamente
option-file-name = Nome do arquivo
optional = opcional
option-expires = Expira
burn-after-reading = Excluir após a leitura
option-visibility = Visibilidade
visibility-unlisted-choice = Não listado (qualquer pessoa com o link)
visibility-team-choice = Equipe (só o meu tenant)
visibility-me-choice = Só eu
encrypt = Criptografar
password-optional = Senha (opcional)
attach-file = Anexar arquivo
add-file = Adicionar arquivo
paste-from-clipboard = Colar da área de transferência
create-paste = Criar paste
shortcut-create = Ctrl+Enter
editor-hint = Tab indenta (Shift+Tab remove o recuo); Esc e depois Tab sai do editor. Até { $size }.
paste-created = Paste criado
link = Link
copy = Copiar
open = Abrir
qr-code = QR code do link
delete-link = Link de exclusão
delete-link-hint = Qualquer pessoa com este link pode excluir o paste. Este navegador também o guarda, então o paste mostra aqui um botão Excluir.

## Visualização do paste

encrypted-paste = Paste criptografado
paste-actions = Ações do paste
file-actions = { $name }: ações
download = Baixar
raw = Texto puro
wrap = Quebrar linhas
share = Compartilhar
new-paste-from-this = Novo paste a partir deste
delete = Excluir
created = criado em
by = por
expires = expira em
never-expires = nunca expira
password = Senha
burn-needs-password = Este paste ({ $size }) precisa de uma senha e será destruído assim que for aberto. Ninguém, nem você, poderá abrir este link de novo. Uma senha errada é recusada e o mantém intacto.
burn-text = Este paste ({ $size }) será destruído assim que for exibido. Ninguém, nem você, poderá abrir este link de novo.
burn-open-with-password = Abrir com a senha (ele será destruído)
burn-reveal = Exibir (ele será destruído)
encrypted-noscript-burn = Este paste tem criptografia de ponta a ponta: ele é descriptografado no seu navegador com a chave do link, o que exige JavaScript. Sem ele, o paste não pode ser exibido, então o botão o mantém intacto.
encrypted-noscript = Este paste tem criptografia de ponta a ponta: ele é descriptografado no seu navegador com a chave do link, o que exige JavaScript.
encrypted-cli = Ou leia-o com:
truncated = Esta página mostra só as primeiras { $lines } linhas; o paste inteiro ({ $size }) está em:
image = imagem
paste-is-file = Este paste é um arquivo ({ $name }, { $size }).
download-it = Baixá-lo
unlock-prompt = Este paste é protegido por senha:
decrypt = Descriptografar
download-all-zip = Baixar tudo (zip)
file-truncated = Esta página mostra só as primeiras { $lines } linhas deste arquivo; o arquivo inteiro ({ $size }) está em:
file-not-shown = Este arquivo ({ $type }, { $size }) não é mostrado aqui; leia-o em:
raw-link = seu link de texto puro
embed-file-not-shown = Este arquivo não é mostrado aqui.
embed-see-whole = Ver inteiro
embed-paste-is-file = Este paste é um arquivo ({ $type }, { $size }).
embed-open-it = Abrir

## Entrar

signed-out-provider = Você saiu do snip. Talvez ainda esteja conectado à sua organização:
sign-out-there-too = sair de lá também
sign-in-with-organisation = Entrar com a sua organização
sign-in-token-text = Entre com um token de API do seu tenant (o administrador o fornece). O navegador guarda só um cookie de sessão; o token não é armazenado.
or-sign-in-token-text = Ou entre com um token de API do seu tenant (o administrador o fornece). O navegador guarda só um cookie de sessão; o token não é armazenado.
sign-in-unknown-token = Esse token é desconhecido ou foi revogado.
sign-in-expired = Esse token expirou.
api-token = Token de API

## Meus pastes

my-local-text = Pastes criados neste navegador, a partir dos links de exclusão que ele guarda.
my-local-sign-in = Entre para ver todos os pastes do seu tenant
my-no-team = Você não pertence a nenhuma equipe neste servidor, então não há pastes de equipe para mostrar: aqui estão os pastes criados neste navegador, a partir dos links de exclusão que ele guarda.
my-local-empty = Este navegador não guarda nenhum paste.
needs-javascript = Esta lista precisa de JavaScript.
column-paste = Paste
column-name = Nome
column-size = Tamanho
column-created = Criado
column-expires = Expira
column-author = Autor
column-visibility = Visibilidade
column-burn = Excluir após a leitura
whose-pastes = De quem
scope-team = Da equipe
scope-mine = Meus
my-search-label = Pesquisar nomes, linguagens e texto
search = Pesquisar
all-pastes = Todos os pastes
best-matches = Melhores resultados para “{ $search }”
no-match = Nenhum paste corresponde.
no-pastes-yet = Ainda não há pastes.
create-one = Criar um
never = nunca
yes = sim
no = não
visibility-unlisted = não listado
visibility-team = equipe
visibility-me = só eu
more-matches = Mais resultados
older-pastes = Pastes mais antigos

## Mensagens do navegador

no-answer = O servidor não respondeu. Verifique sua conexão e tente de novo.
server-no-answer = o servidor não respondeu
server-answered = O servidor respondeu { $status }.
copied = Copiado
copy-failed = Falha ao copiar
close = Fechar
cancel = Cancelar
binary = binário
files-count = { $count ->
    [one] { $count } arquivo
   *[other] { $count } arquivos
}
progress-of = { $done } de { $total }
auto-detected = Detectado automaticamente: { $language }
encryption-needs-https = A criptografia exige HTTPS (ou http://localhost)
clipboard-empty = A área de transferência está vazia.
clipboard-refused = O navegador não permitiu ler a área de transferência; pressione Ctrl+V (⌘V) no editor.
files-added = { $count ->
    [one] { $count } arquivo adicionado.
   *[other] { $count } arquivos adicionados, uma aba para cada.
}
file-n = Arquivo { $n }
remove-named = Remover { $name }
remove-file-n = Remover o arquivo { $n }
file-loaded = { $name } carregado no editor.
attachment-name = { $name } ({ $type }, { $size })
attachment-preview = Prévia da imagem anexada
cloned = Copiado do paste que você estava vendo: edite-o e crie um novo paste.
nothing-to-paste = Ainda não há nada para enviar.
paste-too-large = O paste tem { $size }; este servidor aceita no máximo { $max }.
files-too-large = Os arquivos somam { $size }; este servidor aceita no máximo { $max }.
file-empty = O arquivo { $n } está vazio.
file-unnamed = O arquivo { $n } não tem nome (um paste de vários arquivos precisa de um para cada).
file-name-taken = O arquivo { $n } tem o nome { $name } de outro arquivo.
create-failed = Não foi possível criar o paste. { $reason }
create-too-large = Grande demais: { $message }
create-slow-down = Pastes demais agora; aguarde um momento. { $message }
create-server-full = O servidor está cheio: { $message }
create-refused = { $message }
uploading = Enviando…
upload-cancelled = O envio foi cancelado; nada foi criado.
upload-progress = Progresso do envio
encrypting = Criptografando…
encrypting-password = Criptografando (derivando a chave da senha)…
share-title = Compartilhar este paste
share-expires-relative = Expira { $relative } ({ $absolute }).
share-expires = Expira em { $absolute }.
share-never-expires = Nunca expira.
share-burns = Excluído após a leitura: o primeiro leitor o destrói.
share-stays = Continua legível até lá (sem exclusão após a leitura).
share-encrypted = Criptografia de ponta a ponta: a chave está só no link (depois do #), o servidor não consegue lê-lo.
share-encrypted-password = Criptografia de ponta a ponta: a chave está só no link (depois do #), o servidor não consegue lê-lo; os leitores também precisam da senha.
share-not-encrypted = Sem criptografia: o servidor o guarda como foi enviado.
share-team = Equipe: só o seu tenant (os tokens e os membros conectados dele) pode lê-lo.
share-me = Só eu: só você, conectado, pode lê-lo.
share-unlisted = Não listado, mas não privado: qualquer pessoa com o link pode lê-lo.
shortcuts-title = Atalhos de teclado
shortcut-raw = Texto puro
shortcut-copy = Copiar o paste
shortcut-link = Copiar o link
shortcut-share = Compartilhar: link, QR code e resumo
shortcut-new = Novo paste
shortcut-wrap = Ativar ou desativar a quebra de linhas longas
shortcut-help = Esta ajuda
link-copied = Link copiado.
link-not-copied = Não foi possível copiar o link.
delete-token-differs = Este link traz um token de exclusão diferente do que este navegador guardou para o paste; o guardado é mantido.
delete-confirm = Clique de novo para excluir
deleted = Excluído
deleted-text = O paste não está mais no servidor.
delete-token-refused = O servidor recusou o token de exclusão que este navegador tinha para o paste.
delete-failed = Não foi possível excluir o paste; tente de novo.
paste-gone = Este paste não existe mais: expirou, foi excluído ou já foi exibido.
show = Mostrar
rendered = Renderizado
source = Código-fonte
decrypted-title = Descriptografado neste navegador; o servidor guarda só o texto cifrado
decrypted-badge = criptografia de ponta a ponta
language-detected = { $language } (detectada)
clone-too-large = Este paste é grande demais para ser copiado para o editor.
sealed-paste-is-file = Este paste é um arquivo ({ $name }, { $size }). Use Baixar para salvá-lo.
sealed-file-not-shown = Este arquivo ({ $type }, { $size }) não é mostrado aqui: use Baixar para salvá-lo.
sealed-file-truncated = Esta página mostra só as primeiras { $lines } linhas ou { $size } deste arquivo; Baixar salva tudo.
burn-no-key = Este link não tem chave (a parte depois do #), então o paste não pôde ser descriptografado. Ele não foi exibido; peça o link completo a quem o enviou.
burn-destroyed = Este paste acabou de ser destruído no servidor. Ele só existe nesta aba: copie ou baixe o que precisar antes de sair.
checking-password = Verificando a senha…
checking-key = Verificando a chave…
revealing = Exibindo…
decrypting = Descriptografando…
wrong-password = Senha errada. Confira e tente de novo.
wrong-password-intact = Senha errada. Confira e tente de novo; o paste está intacto.
no-key = Este paste tem criptografia de ponta a ponta e o link não tem chave (a parte depois do #). Peça o link completo a quem o enviou.
bad-key = A chave deste link está danificada ou incompleta (são os 43 caracteres depois do #). Copie o link inteiro de novo.
key-refused = A chave deste link não abre o paste: o link está incompleto ou foi alterado. Copie o link inteiro de novo.
key-refused-intact = A chave deste link não abre o paste: o link está incompleto ou foi alterado. O paste está intacto; copie o link inteiro de novo.
cannot-decrypt = Não foi possível descriptografar: { $reason }.
envelope-bad_key = a chave do link não é válida
envelope-malformed_plaintext = os dados descriptografados estão malformados
envelope-not_envelope = isto não é um paste criptografado do snip, ou está danificado
envelope-unsupported = este navegador ou esta versão do snip não consegue lê-lo (a criptografia exige HTTPS, ou http://localhost)
envelope-too_many_iterations = o paste pede mais rodadas de derivação de chave do que o permitido
envelope-password_required = este paste é protegido por senha
envelope-auth_failed = chave ou senha errada: o link está incompleto, ou o paste foi adulterado
find-placeholder = Localizar no paste
find-label = Localizar no paste inteiro
find-previous = Resultado anterior
find-next = Próximo resultado
find-none = Nenhum resultado
find-position = { $n } de { $count }
find-position-more = { $n } de { $count }+
rest-loading = Carregando o restante do paste…
rest-progress = Carregando o restante do paste… { $done } de { $total }
rest-no-answer = Não foi possível carregar o restante do paste (o servidor não respondeu). Ele está em { $url }.
rest-refused = Não foi possível carregar o restante do paste (o servidor respondeu { $status }). Ele está em { $url }.
remote-image = Imagem de { $host }: { $alt } (clique para abrir)
image-not-shown = Imagem não exibida: { $alt }
task-done = concluída
task-not-done = não concluída
my-browser-title = Criados neste navegador
encrypted-paste-id = Paste criptografado { $id }
keep-keys = Guardar as chaves dos pastes criptografados criados neste navegador
keep-keys-hint = Assim, os links deles aqui os abrem. Qualquer pessoa que use este perfil do navegador também poderá lê-los; desativar isto esquece todas as chaves guardadas. O servidor nunca vê as chaves.
deleted-id = { $id } excluído.
delete-failed-id = Não foi possível excluir { $id }: { $reason }
