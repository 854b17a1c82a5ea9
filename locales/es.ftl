# Los mensajes de snip en español (los mismos que locales/en.ftl).

## Diseño

skip-to-content = Saltar al contenido
new-paste = Nuevo paste
account = Cuenta
my-pastes = Mis pastes
sign-in = Iniciar sesión
sign-out = Cerrar sesión
switch-team-to = Cambiar a
switch-team = Cambiar
no-team-header = No perteneces a ningún equipo en este servidor: solo puedes hacer lo que puede hacer cualquiera sin cuenta.
theme = Tema
theme-auto = Automático
theme-light = Claro
theme-dark = Oscuro
language = Idioma
language-change = Cambiar
third-party-licences = licencias de terceros

## Tamaños y fechas

size-bytes = { $n ->
    [one] { $n } byte
   *[other] { $n } bytes
}
size-kib = { $n } KiB
size-mib = { $n } MiB
size-gib = { $n } GiB
size-tib = { $n } TiB
time-utc = { $date } { $time } UTC

## Páginas de error

error-mistyped-id = Este enlace parece mal copiado
error-mistyped-id-text = El último carácter de cada enlace de snip comprueba los demás, y en este no coincide: probablemente se cambió, se perdió o se intercambió un carácter al copiarlo. Compare el enlace con el original.
error-paste-not-found = Paste no encontrado
error-paste-not-found-text = No hay ningún paste en esta dirección. Puede que haya caducado, que se haya eliminado o que (eliminar tras leer) ya se haya leído.
error-page-not-found = Página no encontrada
error-page-not-found-text = No hay ninguna página en esta dirección. Compruebe el enlace que siguió, o cree un nuevo paste.
error-sign-in-needed = Hay que iniciar sesión
error-sign-in-needed-text = Este servidor necesita aquí un tenant con la sesión iniciada.
error-sign-in-with-token = Iniciar sesión con un token de API
error-too-large = Demasiado grande
error-too-large-text = El paste es más grande de lo que acepta este servidor.
error-slow-down = Más despacio
error-slow-down-text = Llegaron demasiadas solicitudes suyas en poco tiempo. Espere un momento y vuelva a intentarlo.
error-other = Error { $status }
create-new-paste = Crear un nuevo paste

## Nuevo paste

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
    [one] { $n } día
   *[other] { $n } días
}
lifetime-weeks = { $n ->
    [one] { $n } semana
   *[other] { $n } semanas
}
lifetime-years = { $n ->
    [one] { $n } año
   *[other] { $n } años
}
new-read-only = Este navegador inició sesión con un token de solo lectura: puede leer y listar los pastes del tenant, pero no crearlos.
new-sign-in-needed = Este servidor solo acepta pastes de usuarios con la sesión iniciada.
new-no-team = No perteneces a ningún equipo en este servidor, y solo acepta pastes de equipos.
files = Archivos
remove-this-file = Quitar este archivo
paste-content = Contenido del paste
editor-placeholder = Pegue o escriba aquí, o suelte un archivo
attached = Adjunto:
remove = Quitar
option-language = Lenguaje
auto-detect = Detección automática
option-file-name = Nombre de archivo
optional = opcional
option-expires = Caduca
burn-after-reading = Eliminar tras leer
option-visibility = Visibilidad
visibility-unlisted-choice = No listado (cualquiera con el enlace)
visibility-team-choice = Equipo (solo mi tenant)
visibility-me-choice = Solo yo
encrypt = Cifrar
password-optional = Contraseña (opcional)
attach-file = Adjuntar archivo
add-file = Añadir archivo
paste-from-clipboard = Pegar desde el portapapeles
create-paste = Crear paste
shortcut-create = Ctrl+Intro
editor-hint = Tab sangra (Mayús+Tab quita la sangría); Esc y luego Tab sale del editor. Hasta { $size }.
paste-created = Paste creado
link = Enlace
copy = Copiar
open = Abrir
qr-code = Código QR del enlace
delete-link = Enlace de eliminación
delete-link-hint = Cualquiera con este enlace puede eliminar el paste. Este navegador también lo recuerda, así que el paste muestra aquí un botón Eliminar.

## Vista de un paste

encrypted-paste = Paste cifrado
paste-actions = Acciones del paste
file-actions = { $name }: acciones
download = Descargar
raw = Sin formato
wrap = Ajustar líneas
share = Compartir
new-paste-from-this = Nuevo paste a partir de este
delete = Eliminar
created = creado el
by = por
expires = caduca el
never-expires = no caduca nunca
password = Contraseña
burn-needs-password = Este paste ({ $size }) necesita una contraseña y se destruirá en cuanto se abra. Nadie, ni siquiera usted, podrá volver a abrir este enlace. Una contraseña incorrecta se rechaza y lo deja intacto.
burn-text = Este paste ({ $size }) se destruirá en cuanto se muestre. Nadie, ni siquiera usted, podrá volver a abrir este enlace.
burn-open-with-password = Abrir con la contraseña (se destruirá)
burn-reveal = Mostrar (se destruirá)
encrypted-noscript-burn = Este paste está cifrado de extremo a extremo: se descifra en su navegador con la clave del enlace, lo que requiere JavaScript. Sin él no se puede mostrar, así que el botón lo deja intacto.
encrypted-noscript = Este paste está cifrado de extremo a extremo: se descifra en su navegador con la clave del enlace, lo que requiere JavaScript.
encrypted-cli = O léalo con:
truncated = Esta página muestra solo las primeras { $lines } líneas; el paste completo ({ $size }) está en:
image = imagen
paste-is-file = Este paste es un archivo ({ $name }, { $size }).
download-it = Descargarlo
unlock-prompt = Este paste está protegido con una contraseña:
decrypt = Descifrar
download-all-zip = Descargar todo (zip)
file-truncated = Esta página muestra solo las primeras { $lines } líneas de este archivo; el archivo completo ({ $size }) está en:
file-not-shown = Este archivo ({ $type }, { $size }) no se muestra aquí; léalo en:
raw-link = su enlace sin formato
embed-file-not-shown = Este archivo no se muestra aquí.
embed-see-whole = Verlo completo
embed-paste-is-file = Este paste es un archivo ({ $type }, { $size }).
embed-open-it = Abrirlo

## Inicio de sesión

signed-out-provider = Ha cerrado la sesión en snip. Puede que siga con la sesión iniciada en su organización:
sign-out-there-too = cerrarla también allí
sign-in-with-organisation = Iniciar sesión con su organización
sign-in-token-text = Inicie sesión con un token de API de su tenant (se lo da el administrador). El navegador solo guarda una cookie de sesión; el token no se almacena.
or-sign-in-token-text = O inicie sesión con un token de API de su tenant (se lo da el administrador). El navegador solo guarda una cookie de sesión; el token no se almacena.
sign-in-unknown-token = Ese token es desconocido o se ha revocado.
sign-in-expired = Ese token ha caducado.
api-token = Token de API

## Mis pastes

my-local-text = Pastes creados en este navegador, según los enlaces de eliminación que recuerda.
my-local-sign-in = Inicie sesión para ver todos los pastes de su tenant
my-no-team = No perteneces a ningún equipo en este servidor, así que no hay pastes de equipo que mostrar: estos son los pastes creados en este navegador, según los enlaces de borrado que recuerda.
my-local-empty = Este navegador no recuerda ningún paste.
needs-javascript = Esta lista requiere JavaScript.
column-paste = Paste
column-name = Nombre
column-size = Tamaño
column-created = Creado
column-expires = Caduca
column-author = Autor
column-visibility = Visibilidad
column-burn = Eliminar tras leer
whose-pastes = De quién
scope-team = Del equipo
scope-mine = Míos
my-search-label = Buscar en nombres, lenguajes y texto
search = Buscar
all-pastes = Todos los pastes
best-matches = Mejores resultados para «{ $search }»
no-match = Ningún paste coincide.
no-pastes-yet = Aún no hay pastes.
create-one = Crear uno
never = nunca
yes = sí
no = no
visibility-unlisted = no listado
visibility-team = equipo
visibility-me = solo yo
more-matches = Más resultados
older-pastes = Pastes más antiguos

## Mensajes del navegador

no-answer = El servidor no respondió. Compruebe su conexión y vuelva a intentarlo.
server-no-answer = el servidor no respondió
server-answered = El servidor respondió { $status }.
copied = Copiado
copy-failed = No se pudo copiar
close = Cerrar
cancel = Cancelar
binary = binario
files-count = { $count ->
    [one] { $count } archivo
   *[other] { $count } archivos
}
progress-of = { $done } de { $total }
auto-detected = Detección automática: { $language }
encryption-needs-https = El cifrado requiere HTTPS (o http://localhost)
clipboard-empty = El portapapeles está vacío.
clipboard-refused = El navegador no permitió leer el portapapeles; pulse Ctrl+V (⌘V) en el editor.
files-added = { $count ->
    [one] Se añadió { $count } archivo.
   *[other] Se añadieron { $count } archivos, una pestaña cada uno.
}
file-n = Archivo { $n }
remove-named = Quitar { $name }
remove-file-n = Quitar el archivo { $n }
file-loaded = { $name } se cargó en el editor.
attachment-name = { $name } ({ $type }, { $size })
attachment-preview = Vista previa de la imagen adjunta
cloned = Copiado del paste que estaba viendo: edítelo y cree un nuevo paste.
nothing-to-paste = Todavía no hay nada que pegar.
paste-too-large = El paste ocupa { $size }; este servidor acepta como máximo { $max }.
files-too-large = Los archivos ocupan { $size } en total; este servidor acepta como máximo { $max }.
file-empty = El archivo { $n } está vacío.
file-unnamed = El archivo { $n } no tiene nombre (un paste de varios archivos necesita uno para cada uno).
file-name-taken = El archivo { $n } tiene el nombre { $name } de otro archivo.
create-failed = No se pudo crear el paste. { $reason }
create-too-large = Demasiado grande: { $message }
create-slow-down = Demasiados pastes ahora mismo; espere un momento. { $message }
create-server-full = El servidor está lleno: { $message }
create-refused = { $message }
uploading = Subiendo…
upload-cancelled = La subida se canceló; no se creó nada.
upload-progress = Progreso de la subida
encrypting = Cifrando…
encrypting-password = Cifrando (derivando la clave de la contraseña)…
share-title = Compartir este paste
share-expires-relative = Caduca { $relative } ({ $absolute }).
share-expires = Caduca el { $absolute }.
share-never-expires = No caduca nunca.
share-burns = Se elimina tras leerlo: el primer lector lo destruye.
share-stays = Sigue legible hasta entonces (no se elimina tras leerlo).
share-encrypted = Cifrado de extremo a extremo: la clave solo está en el enlace (tras #), el servidor no puede leerlo.
share-encrypted-password = Cifrado de extremo a extremo: la clave solo está en el enlace (tras #), el servidor no puede leerlo; los lectores también necesitan la contraseña.
share-not-encrypted = Sin cifrar: el servidor lo guarda tal como se envió.
share-team = Equipo: solo su tenant (sus tokens y miembros con sesión iniciada) puede leerlo.
share-me = Solo yo: solo usted, con la sesión iniciada, puede leerlo.
share-unlisted = No listado, pero no privado: cualquiera con el enlace puede leerlo.
shortcuts-title = Atajos de teclado
shortcut-raw = Texto sin formato
shortcut-copy = Copiar el paste
shortcut-link = Copiar el enlace
shortcut-share = Compartir: enlace, código QR y resumen
shortcut-new = Nuevo paste
shortcut-wrap = Activar o desactivar el ajuste de líneas largas
shortcut-help = Esta ayuda
link-copied = Enlace copiado.
link-not-copied = No se pudo copiar el enlace.
delete-token-differs = Este enlace lleva un token de eliminación distinto del que este navegador guardó para el paste; se conserva el guardado.
delete-confirm = Pulse otra vez para eliminar
deleted = Eliminado
deleted-text = El paste ya no está en el servidor.
delete-token-refused = El servidor rechazó el token de eliminación que este navegador tenía para el paste.
delete-failed = No se pudo eliminar el paste; vuelva a intentarlo.
paste-gone = Este paste ya no existe: caducó, se eliminó o ya se mostró.
show = Mostrar
rendered = Renderizado
source = Fuente
decrypted-title = Descifrado en este navegador; el servidor solo tiene el texto cifrado
decrypted-badge = cifrado de extremo a extremo
language-detected = { $language } (detectado)
clone-too-large = Este paste es demasiado grande para copiarlo en el editor.
sealed-paste-is-file = Este paste es un archivo ({ $name }, { $size }). Use Descargar para guardarlo.
sealed-file-not-shown = Este archivo ({ $type }, { $size }) no se muestra aquí: use Descargar para guardarlo.
sealed-file-truncated = Esta página muestra solo las primeras { $lines } líneas o { $size } de este archivo; Descargar lo guarda completo.
burn-no-key = Este enlace no tiene clave (la parte tras #), así que el paste no se pudo descifrar. No se ha mostrado; pida el enlace completo a quien lo envió.
burn-destroyed = Este paste acaba de destruirse en el servidor. Solo existe en esta pestaña: copie o descargue lo que necesite antes de salir.
checking-password = Comprobando la contraseña…
checking-key = Comprobando la clave…
revealing = Mostrando…
decrypting = Descifrando…
wrong-password = Contraseña incorrecta. Compruébela y vuelva a intentarlo.
wrong-password-intact = Contraseña incorrecta. Compruébela y vuelva a intentarlo; el paste está intacto.
no-key = Este paste está cifrado de extremo a extremo y el enlace no tiene clave (la parte tras #). Pida el enlace completo a quien lo envió.
bad-key = La clave de este enlace está dañada o incompleta (son los 43 caracteres tras #). Vuelva a copiar el enlace completo.
key-refused = La clave de este enlace no abre el paste: el enlace está incompleto o se modificó. Vuelva a copiar el enlace completo.
key-refused-intact = La clave de este enlace no abre el paste: el enlace está incompleto o se modificó. El paste está intacto; vuelva a copiar el enlace completo.
cannot-decrypt = No se puede descifrar: { $reason }.
envelope-bad_key = la clave del enlace no es válida
envelope-malformed_plaintext = los datos descifrados están mal formados
envelope-not_envelope = no es un paste cifrado de snip, o está dañado
envelope-unsupported = este navegador o esta versión de snip no puede leerlo (el cifrado requiere HTTPS, o http://localhost)
envelope-too_many_iterations = el paste pide más rondas de derivación de clave de las permitidas
envelope-password_required = este paste está protegido con una contraseña
envelope-auth_failed = clave o contraseña incorrecta: el enlace está incompleto o el paste fue manipulado
find-placeholder = Buscar en el paste
find-label = Buscar en todo el paste
find-previous = Resultado anterior
find-next = Resultado siguiente
find-none = Sin resultados
find-position = { $n } de { $count }
find-position-more = { $n } de { $count }+
rest-loading = Cargando el resto del paste…
rest-progress = Cargando el resto del paste… { $done } de { $total }
rest-no-answer = No se pudo cargar el resto del paste (el servidor no respondió). Está en { $url }.
rest-refused = No se pudo cargar el resto del paste (el servidor respondió { $status }). Está en { $url }.
remote-image = Imagen de { $host }: { $alt } (pulse para abrirla)
image-not-shown = Imagen no mostrada: { $alt }
task-done = hecho
task-not-done = pendiente
my-browser-title = Creados en este navegador
encrypted-paste-id = Paste cifrado { $id }
keep-keys = Recordar las claves de los pastes cifrados creados en este navegador
keep-keys-hint = Así sus enlaces de aquí los abren. Cualquiera que pueda usar este perfil del navegador también podrá leerlos; desactivarlo olvida todas las claves guardadas. El servidor nunca ve las claves.
deleted-id = { $id } eliminado.
delete-failed-id = No se pudo eliminar { $id }: { $reason }
