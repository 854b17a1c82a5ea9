# Les messages de snip en français (les mêmes que locales/en.ftl).

## Mise en page

skip-to-content = Aller au contenu
new-paste = Nouveau paste
account = Compte
my-pastes = Mes pastes
sign-in = Se connecter
sign-out = Se déconnecter
switch-team-to = Passer à
switch-team = Changer
no-team-header = Vous n’appartenez à aucune équipe sur ce serveur : vous ne pouvez faire que ce que peut faire toute personne sans compte.
theme = Thème
theme-auto = Automatique
theme-light = Clair
theme-dark = Sombre
language = Langue
language-change = Changer
third-party-licences = licences tierces

## Tailles et dates

size-bytes = { $n ->
    [one] { $n } octet
   *[other] { $n } octets
}
size-kib = { $n } Kio
size-mib = { $n } Mio
size-gib = { $n } Gio
size-tib = { $n } Tio
time-utc = { $date } { $time } UTC

## Pages d'erreur

error-mistyped-id = Ce lien semble mal recopié
error-mistyped-id-text = Le dernier caractère de chaque lien snip vérifie les autres, et celui-ci ne correspond pas : un caractère a sans doute été modifié, omis ou interverti lors de la copie. Comparez le lien avec l'original.
error-paste-not-found = Paste introuvable
error-paste-not-found-text = Il n'y a pas de paste à cette adresse. Il a peut-être expiré, été supprimé ou (lecture unique) déjà été lu.
error-page-not-found = Page introuvable
error-page-not-found-text = Il n'y a pas de page à cette adresse. Vérifiez le lien suivi, ou créez un nouveau paste.
error-sign-in-needed = Connexion requise
error-sign-in-needed-text = Ce serveur exige ici un tenant connecté.
error-sign-in-with-token = Se connecter avec un jeton d'API
error-too-large = Trop volumineux
error-too-large-text = Le paste dépasse la taille que ce serveur accepte.
error-slow-down = Doucement
error-slow-down-text = Trop de requêtes sont venues de vous en peu de temps. Patientez un instant, puis réessayez.
error-other = Erreur { $status }
create-new-paste = Créer un nouveau paste

## Nouveau paste

lifetime-never = Jamais
lifetime-seconds = { $n ->
    [one] { $n } seconde
   *[other] { $n } secondes
}
lifetime-minutes = { $n ->
    [one] { $n } minute
   *[other] { $n } minutes
}
lifetime-hours = { $n ->
    [one] { $n } heure
   *[other] { $n } heures
}
lifetime-days = { $n ->
    [one] { $n } jour
   *[other] { $n } jours
}
lifetime-weeks = { $n ->
    [one] { $n } semaine
   *[other] { $n } semaines
}
lifetime-years = { $n ->
    [one] { $n } an
   *[other] { $n } ans
}
new-read-only = Ce navigateur s'est connecté avec un jeton en lecture seule : il peut lire et lister les pastes du tenant, pas en créer.
new-sign-in-needed = Ce serveur n'accepte que les pastes d'utilisateurs connectés.
new-no-team = Vous n’appartenez à aucune équipe sur ce serveur, et il n’accepte de pastes que des équipes.
files = Fichiers
remove-this-file = Retirer ce fichier
paste-content = Contenu du paste
editor-placeholder = Collez ou tapez ici, ou déposez un fichier
attached = Pièce jointe :
remove = Retirer
option-language = Langage
auto-detect = Détection automatique
option-file-name = Nom de fichier
optional = facultatif
option-expires = Expiration
burn-after-reading = Supprimer après lecture
option-visibility = Visibilité
visibility-unlisted-choice = Non répertorié (toute personne ayant le lien)
visibility-team-choice = Équipe (mon tenant seulement)
visibility-me-choice = Moi seulement
encrypt = Chiffrer
password-optional = Mot de passe (facultatif)
attach-file = Joindre un fichier
add-file = Ajouter un fichier
paste-from-clipboard = Coller depuis le presse-papiers
create-paste = Créer le paste
shortcut-create = Ctrl+Entrée
editor-hint = Tab indente (Maj+Tab désindente) ; Échap puis Tab quitte l'éditeur. Jusqu'à { $size }.
paste-created = Paste créé
link = Lien
copy = Copier
open = Ouvrir
qr-code = QR code du lien
delete-link = Lien de suppression
delete-link-hint = Toute personne ayant ce lien peut supprimer le paste. Ce navigateur le retient aussi, et le paste affiche donc ici un bouton Supprimer.

## Affichage d'un paste

encrypted-paste = Paste chiffré
paste-actions = Actions du paste
file-actions = { $name } : actions
download = Télécharger
raw = Brut
wrap = Retour à la ligne
share = Partager
new-paste-from-this = Nouveau paste à partir de celui-ci
delete = Supprimer
created = créé le
by = par
expires = expire le
never-expires = n'expire jamais
password = Mot de passe
burn-needs-password = Ce paste ({ $size }) exige un mot de passe et sera détruit dès son ouverture. Personne, vous compris, ne pourra rouvrir ce lien. Un mauvais mot de passe est refusé et le laisse intact.
burn-text = Ce paste ({ $size }) sera détruit dès qu'il sera affiché. Personne, vous compris, ne pourra rouvrir ce lien.
burn-open-with-password = Ouvrir avec le mot de passe (il sera détruit)
burn-reveal = Afficher (il sera détruit)
encrypted-noscript-burn = Ce paste est chiffré de bout en bout : il est déchiffré dans votre navigateur avec la clé du lien, ce qui exige JavaScript. Sans lui, le paste ne peut pas être affiché ; le bouton le laisse donc intact.
encrypted-noscript = Ce paste est chiffré de bout en bout : il est déchiffré dans votre navigateur avec la clé du lien, ce qui exige JavaScript.
encrypted-cli = Ou lisez-le avec :
truncated = Cette page n'affiche que les { $lines } premières lignes ; le paste entier ({ $size }) se trouve à :
image = image
paste-is-file = Ce paste est un fichier ({ $name }, { $size }).
download-it = Le télécharger
unlock-prompt = Ce paste est protégé par un mot de passe :
decrypt = Déchiffrer
download-all-zip = Tout télécharger (zip)
file-truncated = Cette page n'affiche que les { $lines } premières lignes de ce fichier ; le fichier entier ({ $size }) se trouve à :
file-not-shown = Ce fichier ({ $type }, { $size }) n'est pas affiché ici ; lisez-le à :
raw-link = son lien brut
embed-file-not-shown = Ce fichier n'est pas affiché ici.
embed-see-whole = Voir en entier
embed-paste-is-file = Ce paste est un fichier ({ $type }, { $size }).
embed-open-it = L'ouvrir

## Connexion

signed-out-provider = Vous êtes déconnecté de snip. Vous êtes peut-être encore connecté à votre organisation :
sign-out-there-too = vous y déconnecter aussi
sign-in-with-organisation = Se connecter avec votre organisation
sign-in-token-text = Connectez-vous avec un jeton d'API de votre tenant (l'administrateur vous le fournit). Le navigateur ne garde qu'un cookie de session ; le jeton n'est pas conservé.
or-sign-in-token-text = Ou connectez-vous avec un jeton d'API de votre tenant (l'administrateur vous le fournit). Le navigateur ne garde qu'un cookie de session ; le jeton n'est pas conservé.
sign-in-unknown-token = Ce jeton est inconnu ou a été révoqué.
sign-in-expired = Ce jeton a expiré.
api-token = Jeton d'API

## Mes pastes

my-local-text = Les pastes créés dans ce navigateur, d'après les liens de suppression qu'il retient.
my-local-sign-in = Connectez-vous pour voir tous les pastes de votre tenant
my-no-team = Vous n’appartenez à aucune équipe sur ce serveur, il n’y a donc aucun paste d’équipe à afficher : voici les pastes créés dans ce navigateur, d’après les liens de suppression qu’il a retenus.
my-local-empty = Ce navigateur ne retient aucun paste.
needs-javascript = Cette liste exige JavaScript.
column-paste = Paste
column-name = Nom
column-size = Taille
column-created = Créé
column-expires = Expire
column-author = Auteur
column-visibility = Visibilité
column-burn = Lecture unique
whose-pastes = Pastes de qui
scope-team = De l'équipe
scope-mine = Les miens
my-search-label = Rechercher dans les noms, langages et textes
search = Rechercher
all-pastes = Tous les pastes
best-matches = Meilleurs résultats pour « { $search } »
no-match = Aucun paste ne correspond.
no-pastes-yet = Pas encore de paste.
create-one = En créer un
never = jamais
yes = oui
no = non
visibility-unlisted = non répertorié
visibility-team = équipe
visibility-me = moi
more-matches = Plus de résultats
older-pastes = Pastes plus anciens

## Messages du navigateur

no-answer = Le serveur n'a pas répondu. Vérifiez votre connexion et réessayez.
server-no-answer = le serveur n'a pas répondu
server-answered = Le serveur a répondu { $status }.
copied = Copié
copy-failed = Échec de la copie
close = Fermer
cancel = Annuler
binary = binaire
files-count = { $count ->
    [one] { $count } fichier
   *[other] { $count } fichiers
}
progress-of = { $done } sur { $total }
auto-detected = Détection automatique : { $language }
encryption-needs-https = Le chiffrement exige HTTPS (ou http://localhost)
clipboard-empty = Le presse-papiers est vide.
clipboard-refused = Le navigateur n'a pas permis de lire le presse-papiers ; appuyez plutôt sur Ctrl+V (⌘V) dans l'éditeur.
files-added = { $count ->
    [one] { $count } fichier ajouté.
   *[other] { $count } fichiers ajoutés, un onglet chacun.
}
file-n = Fichier { $n }
remove-named = Retirer { $name }
remove-file-n = Retirer le fichier { $n }
file-loaded = { $name } chargé dans l'éditeur.
attachment-name = { $name } ({ $type }, { $size })
attachment-preview = Aperçu de l'image jointe
cloned = Copié depuis le paste que vous consultiez : modifiez-le et créez un nouveau paste.
nothing-to-paste = Il n'y a encore rien à envoyer.
paste-too-large = Le paste fait { $size } ; ce serveur accepte au plus { $max }.
files-too-large = Les fichiers font { $size } au total ; ce serveur accepte au plus { $max }.
file-empty = Le fichier { $n } est vide.
file-unnamed = Le fichier { $n } n'a pas de nom (un paste de plusieurs fichiers en exige un pour chacun).
file-name-taken = Le fichier { $n } porte le nom { $name } d'un autre fichier.
create-failed = Impossible de créer le paste. { $reason }
create-too-large = Trop volumineux : { $message }
create-slow-down = Trop de pastes en ce moment ; patientez un instant. { $message }
create-server-full = Le serveur est plein : { $message }
create-refused = { $message }
uploading = Envoi en cours…
upload-cancelled = L'envoi a été annulé ; rien n'a été créé.
upload-progress = Progression de l'envoi
encrypting = Chiffrement…
encrypting-password = Chiffrement (dérivation de la clé à partir du mot de passe)…
share-title = Partager ce paste
share-expires-relative = Expire { $relative } ({ $absolute }).
share-expires = Expire le { $absolute }.
share-never-expires = N'expire jamais.
share-burns = Supprimé après lecture : le premier lecteur le détruit.
share-stays = Reste lisible jusque-là (pas de suppression après lecture).
share-encrypted = Chiffré de bout en bout : la clé n'est que dans le lien (après #), le serveur ne peut pas le lire.
share-encrypted-password = Chiffré de bout en bout : la clé n'est que dans le lien (après #), le serveur ne peut pas le lire ; les lecteurs ont aussi besoin du mot de passe.
share-not-encrypted = Non chiffré : le serveur le stocke tel qu'envoyé.
share-team = Équipe : seul votre tenant (ses jetons et ses membres connectés) peut le lire.
share-me = Moi seulement : vous seul, connecté, pouvez le lire.
share-unlisted = Non répertorié, mais pas privé : toute personne ayant le lien peut le lire.
shortcuts-title = Raccourcis clavier
shortcut-raw = Texte brut
shortcut-copy = Copier le paste
shortcut-link = Copier le lien
shortcut-share = Partager : lien, QR code et résumé
shortcut-new = Nouveau paste
shortcut-wrap = Activer ou désactiver le retour à la ligne
shortcut-help = Cette aide
link-copied = Lien copié.
link-not-copied = Impossible de copier le lien.
delete-token-differs = Ce lien porte un jeton de suppression différent de celui que ce navigateur a enregistré pour le paste ; celui enregistré est conservé.
delete-confirm = Cliquez à nouveau pour supprimer
deleted = Supprimé
deleted-text = Le paste a disparu du serveur.
delete-token-refused = Le serveur a refusé le jeton de suppression que ce navigateur avait pour le paste.
delete-failed = Impossible de supprimer le paste ; réessayez.
paste-gone = Ce paste n'existe plus : il a expiré, été supprimé ou déjà été affiché.
show = Affichage
rendered = Rendu
source = Source
decrypted-title = Déchiffré dans ce navigateur ; le serveur ne détient que le texte chiffré
decrypted-badge = chiffré de bout en bout
language-detected = { $language } (détecté)
clone-too-large = Ce paste est trop volumineux pour être copié dans l'éditeur.
sealed-paste-is-file = Ce paste est un fichier ({ $name }, { $size }). Utilisez Télécharger pour l'enregistrer.
sealed-file-not-shown = Ce fichier ({ $type }, { $size }) n'est pas affiché ici : utilisez Télécharger pour l'enregistrer.
sealed-file-truncated = Cette page n'affiche que les { $lines } premières lignes ou { $size } de ce fichier ; Télécharger l'enregistre en entier.
burn-no-key = Ce lien n'a pas de clé (la partie après #), le paste n'a donc pas pu être déchiffré. Il n'a pas été affiché ; demandez le lien complet à l'expéditeur.
burn-destroyed = Ce paste vient d'être détruit sur le serveur. Il n'existe plus que dans cet onglet : copiez ou téléchargez ce dont vous avez besoin avant de partir.
checking-password = Vérification du mot de passe…
checking-key = Vérification de la clé…
revealing = Affichage…
decrypting = Déchiffrement…
wrong-password = Mot de passe incorrect. Vérifiez-le et réessayez.
wrong-password-intact = Mot de passe incorrect. Vérifiez-le et réessayez ; le paste est intact.
no-key = Ce paste est chiffré de bout en bout et le lien n'a pas de clé (la partie après #). Demandez le lien complet à l'expéditeur.
bad-key = La clé de ce lien est abîmée ou incomplète (ce sont les 43 caractères après #). Recopiez le lien entier.
key-refused = La clé de ce lien n'ouvre pas le paste : le lien est incomplet ou a été modifié. Recopiez le lien entier.
key-refused-intact = La clé de ce lien n'ouvre pas le paste : le lien est incomplet ou a été modifié. Le paste est intact ; recopiez le lien entier.
cannot-decrypt = Déchiffrement impossible : { $reason }.
envelope-bad_key = la clé du lien n'est pas valide
envelope-malformed_plaintext = les données déchiffrées sont mal formées
envelope-not_envelope = ce n'est pas un paste chiffré de snip, ou il est abîmé
envelope-unsupported = ce navigateur ou cette version de snip ne peut pas le lire (le chiffrement exige HTTPS, ou http://localhost)
envelope-too_many_iterations = le paste demande plus de tours de dérivation de clé que permis
envelope-password_required = ce paste est protégé par un mot de passe
envelope-auth_failed = clé ou mot de passe incorrect : le lien est incomplet, ou le paste a été altéré
find-placeholder = Rechercher dans le paste
find-label = Rechercher dans tout le paste
find-previous = Résultat précédent
find-next = Résultat suivant
find-none = Aucun résultat
find-position = { $n } sur { $count }
find-position-more = { $n } sur { $count }+
rest-loading = Chargement de la suite du paste…
rest-progress = Chargement de la suite du paste… { $done } sur { $total }
rest-no-answer = La suite du paste n'a pas pu être chargée (le serveur n'a pas répondu). Elle se trouve à { $url }.
rest-refused = La suite du paste n'a pas pu être chargée (le serveur a répondu { $status }). Elle se trouve à { $url }.
remote-image = Image de { $host } : { $alt } (cliquez pour l'ouvrir)
image-not-shown = Image non affichée : { $alt }
task-done = fait
task-not-done = à faire
my-browser-title = Créés dans ce navigateur
encrypted-paste-id = Paste chiffré { $id }
keep-keys = Retenir les clés des pastes chiffrés créés dans ce navigateur
keep-keys-hint = Leurs liens ici les ouvrent alors. Toute personne pouvant utiliser ce profil de navigateur peut aussi les lire ; désactiver cette option oublie toutes les clés retenues. Le serveur ne voit jamais les clés.
deleted-id = { $id } supprimé.
delete-failed-id = Impossible de supprimer { $id } : { $reason }
