# snips Meldungen auf Deutsch (dieselben wie locales/en.ftl).

## Layout

skip-to-content = Zum Inhalt springen
new-paste = Neuer Paste
account = Konto
my-pastes = Meine Pastes
sign-in = Anmelden
sign-out = Abmelden
switch-team-to = Wechseln zu
switch-team = Wechseln
no-team-header = Sie gehören auf diesem Server zu keinem Team: Sie können nur tun, was jeder ohne Konto kann.
theme = Design
theme-auto = Automatisch
theme-light = Hell
theme-dark = Dunkel
language = Sprache
language-change = Ändern
third-party-licences = Lizenzen Dritter

## Größen und Zeiten

size-bytes = { $n ->
    [one] { $n } Byte
   *[other] { $n } Bytes
}
size-kib = { $n } KiB
size-mib = { $n } MiB
size-gib = { $n } GiB
size-tib = { $n } TiB
time-utc = { $date } { $time } UTC

## Fehlerseiten

error-mistyped-id = Dieser Link scheint vertippt zu sein
error-mistyped-id-text = Das letzte Zeichen jedes snip-Links prüft die übrigen, und bei diesem passt es nicht: Beim Kopieren wurde vermutlich ein Zeichen geändert, ausgelassen oder vertauscht. Vergleichen Sie den Link mit dem Original.
error-paste-not-found = Paste nicht gefunden
error-paste-not-found-text = Unter dieser Adresse gibt es keinen Paste. Er ist vielleicht abgelaufen, wurde gelöscht oder (Einmal lesen) schon gelesen.
error-page-not-found = Seite nicht gefunden
error-page-not-found-text = Unter dieser Adresse gibt es keine Seite. Prüfen Sie den Link, dem Sie gefolgt sind, oder erstellen Sie einen neuen Paste.
error-sign-in-needed = Anmeldung erforderlich
error-sign-in-needed-text = Dieser Server verlangt hier einen angemeldeten Mandanten.
error-sign-in-with-token = Mit einem API-Token anmelden
error-too-large = Zu groß
error-too-large-text = Der Paste ist größer, als dieser Server annimmt.
error-slow-down = Langsamer, bitte
error-slow-down-text = In kurzer Zeit kamen zu viele Anfragen von Ihnen. Warten Sie einen Moment und versuchen Sie es dann erneut.
error-other = Fehler { $status }
create-new-paste = Einen neuen Paste erstellen

## Neuer Paste

lifetime-never = Nie
lifetime-seconds = { $n ->
    [one] { $n } Sekunde
   *[other] { $n } Sekunden
}
lifetime-minutes = { $n ->
    [one] { $n } Minute
   *[other] { $n } Minuten
}
lifetime-hours = { $n ->
    [one] { $n } Stunde
   *[other] { $n } Stunden
}
lifetime-days = { $n ->
    [one] { $n } Tag
   *[other] { $n } Tage
}
lifetime-weeks = { $n ->
    [one] { $n } Woche
   *[other] { $n } Wochen
}
lifetime-years = { $n ->
    [one] { $n } Jahr
   *[other] { $n } Jahre
}
new-read-only = Dieser Browser ist mit einem Nur-Lese-Token angemeldet: Er kann die Pastes des Mandanten lesen und auflisten, aber keine erstellen.
new-sign-in-needed = Dieser Server nimmt Pastes nur von angemeldeten Nutzern an.
new-no-team = Sie gehören auf diesem Server zu keinem Team, und er nimmt Pastes nur von Teams an.
files = Dateien
remove-this-file = Diese Datei entfernen
paste-content = Inhalt des Paste
editor-placeholder = Hier einfügen oder tippen, oder eine Datei hineinziehen
attached = Angehängt:
remove = Entfernen
option-language = Syntax
auto-detect = Automatisch erkennen
option-file-name = Dateiname
optional = optional
option-expires = Läuft ab
burn-after-reading = Nach dem Lesen löschen
option-visibility = Sichtbarkeit
visibility-unlisted-choice = Nicht gelistet (jeder mit dem Link)
visibility-team-choice = Team (nur mein Mandant)
visibility-me-choice = Nur ich
encrypt = Verschlüsseln
password-optional = Passwort (optional)
attach-file = Datei anhängen
add-file = Datei hinzufügen
paste-from-clipboard = Aus der Zwischenablage einfügen
create-paste = Paste erstellen
shortcut-create = Strg+Eingabe
editor-hint = Tab rückt ein (Umschalt+Tab rückt aus); Esc und dann Tab verlässt den Editor. Bis zu { $size }.
paste-created = Paste erstellt
link = Link
copy = Kopieren
open = Öffnen
qr-code = QR-Code des Links
delete-link = Lösch-Link
delete-link-hint = Jeder mit diesem Link kann den Paste löschen. Dieser Browser merkt ihn sich auch, daher zeigt der Paste hier eine Schaltfläche „Löschen“.

## Ansicht eines Paste

encrypted-paste = Verschlüsselter Paste
paste-actions = Aktionen für den Paste
file-actions = { $name }: Aktionen
download = Herunterladen
raw = Rohtext
wrap = Umbrechen
share = Teilen
new-paste-from-this = Neuer Paste daraus
delete = Löschen
created = erstellt
by = von
expires = läuft ab
never-expires = läuft nie ab
password = Passwort
burn-needs-password = Dieser Paste ({ $size }) braucht ein Passwort und wird zerstört, sobald er geöffnet wird. Niemand, auch Sie nicht, kann diesen Link danach noch öffnen. Ein falsches Passwort wird abgewiesen und lässt ihn unversehrt.
burn-text = Dieser Paste ({ $size }) wird zerstört, sobald er angezeigt wird. Niemand, auch Sie nicht, kann diesen Link danach noch öffnen.
burn-open-with-password = Mit dem Passwort öffnen (er wird zerstört)
burn-reveal = Anzeigen (er wird zerstört)
encrypted-noscript-burn = Dieser Paste ist Ende-zu-Ende-verschlüsselt: Er wird in Ihrem Browser mit dem Schlüssel aus dem Link entschlüsselt, was JavaScript braucht. Ohne JavaScript kann er nicht angezeigt werden, daher lässt die Schaltfläche ihn unversehrt.
encrypted-noscript = Dieser Paste ist Ende-zu-Ende-verschlüsselt: Er wird in Ihrem Browser mit dem Schlüssel aus dem Link entschlüsselt, was JavaScript braucht.
encrypted-cli = Oder lesen Sie ihn mit:
truncated = Diese Seite zeigt nur die ersten { $lines } Zeilen; der ganze Paste ({ $size }) liegt unter:
image = Bild
paste-is-file = Dieser Paste ist eine Datei ({ $name }, { $size }).
download-it = Herunterladen
unlock-prompt = Dieser Paste ist mit einem Passwort geschützt:
decrypt = Entschlüsseln
download-all-zip = Alle herunterladen (ZIP)
file-truncated = Diese Seite zeigt nur die ersten { $lines } Zeilen dieser Datei; die ganze Datei ({ $size }) liegt unter:
file-not-shown = Diese Datei ({ $type }, { $size }) wird hier nicht angezeigt; lesen Sie sie unter:
raw-link = ihrem Rohtext-Link
embed-file-not-shown = Diese Datei wird hier nicht angezeigt.
embed-see-whole = Ganz ansehen
embed-paste-is-file = Dieser Paste ist eine Datei ({ $type }, { $size }).
embed-open-it = Öffnen

## Anmeldung

signed-out-provider = Sie sind von snip abgemeldet. Bei Ihrer Organisation sind Sie womöglich noch angemeldet:
sign-out-there-too = auch dort abmelden
sign-in-with-organisation = Mit Ihrer Organisation anmelden
sign-in-token-text = Melden Sie sich mit einem API-Token Ihres Mandanten an (Sie erhalten es von der Administration). Der Browser behält nur ein Sitzungs-Cookie; das Token wird nicht gespeichert.
or-sign-in-token-text = Oder melden Sie sich mit einem API-Token Ihres Mandanten an (Sie erhalten es von der Administration). Der Browser behält nur ein Sitzungs-Cookie; das Token wird nicht gespeichert.
sign-in-unknown-token = Dieses Token ist unbekannt oder wurde widerrufen.
sign-in-expired = Dieses Token ist abgelaufen.
api-token = API-Token

## Meine Pastes

my-local-text = In diesem Browser erstellte Pastes, aus den Lösch-Links, die er sich merkt.
my-local-sign-in = Anmelden, um alle Pastes Ihres Mandanten zu sehen
my-no-team = Sie gehören auf diesem Server zu keinem Team, daher gibt es keine Team-Pastes: Hier sind die in diesem Browser erstellten Pastes, aus den Löschlinks, die er sich merkt.
my-local-empty = Dieser Browser merkt sich keine Pastes.
needs-javascript = Diese Liste braucht JavaScript.
column-paste = Paste
column-name = Name
column-size = Größe
column-created = Erstellt
column-expires = Läuft ab
column-author = Autor
column-visibility = Sichtbarkeit
column-burn = Einmal lesen
whose-pastes = Wessen Pastes
scope-team = Vom Team
scope-mine = Meine
my-search-label = Namen, Sprachen und Text durchsuchen
search = Suchen
all-pastes = Alle Pastes
best-matches = Beste Treffer für „{ $search }“
no-match = Kein Paste passt.
no-pastes-yet = Noch keine Pastes.
create-one = Einen erstellen
never = nie
yes = ja
no = nein
visibility-unlisted = nicht gelistet
visibility-team = Team
visibility-me = nur ich
more-matches = Weitere Treffer
older-pastes = Ältere Pastes

## Meldungen des Browsers

no-answer = Der Server hat nicht geantwortet. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.
server-no-answer = der Server hat nicht geantwortet
server-answered = Der Server antwortete { $status }.
copied = Kopiert
copy-failed = Kopieren fehlgeschlagen
close = Schließen
cancel = Abbrechen
binary = binär
files-count = { $count ->
    [one] { $count } Datei
   *[other] { $count } Dateien
}
progress-of = { $done } von { $total }
auto-detected = Automatisch erkannt: { $language }
encryption-needs-https = Verschlüsselung braucht HTTPS (oder http://localhost)
clipboard-empty = Die Zwischenablage ist leer.
clipboard-refused = Der Browser hat das Lesen der Zwischenablage nicht erlaubt; drücken Sie stattdessen Strg+V (⌘V) im Editor.
files-added = { $count ->
    [one] { $count } Datei hinzugefügt.
   *[other] { $count } Dateien hinzugefügt, je ein Tab.
}
file-n = Datei { $n }
remove-named = { $name } entfernen
remove-file-n = Datei { $n } entfernen
file-loaded = { $name } in den Editor geladen.
attachment-name = { $name } ({ $type }, { $size })
attachment-preview = Vorschau des angehängten Bildes
cloned = Aus dem angesehenen Paste kopiert: Bearbeiten Sie ihn und erstellen Sie einen neuen Paste.
nothing-to-paste = Es gibt noch nichts einzufügen.
paste-too-large = Der Paste ist { $size } groß; dieser Server nimmt höchstens { $max } an.
files-too-large = Die Dateien sind zusammen { $size } groß; dieser Server nimmt höchstens { $max } an.
file-empty = Datei { $n } ist leer.
file-unnamed = Datei { $n } hat keinen Namen (ein Paste aus mehreren Dateien braucht einen für jede).
file-name-taken = Datei { $n } hat denselben Namen { $name } wie eine andere Datei.
create-failed = Der Paste konnte nicht erstellt werden. { $reason }
create-too-large = Zu groß: { $message }
create-slow-down = Gerade zu viele Pastes; warten Sie einen Moment. { $message }
create-server-full = Der Server ist voll: { $message }
create-refused = { $message }
uploading = Wird hochgeladen…
upload-cancelled = Das Hochladen wurde abgebrochen; es wurde nichts erstellt.
upload-progress = Fortschritt des Hochladens
encrypting = Wird verschlüsselt…
encrypting-password = Wird verschlüsselt (der Schlüssel wird aus dem Passwort abgeleitet)…
share-title = Diesen Paste teilen
share-expires-relative = Läuft { $relative } ab ({ $absolute }).
share-expires = Läuft am { $absolute } ab.
share-never-expires = Läuft nie ab.
share-burns = Wird nach dem Lesen gelöscht: Der erste Leser zerstört ihn.
share-stays = Bleibt bis dahin lesbar (kein Löschen nach dem Lesen).
share-encrypted = Ende-zu-Ende-verschlüsselt: Der Schlüssel steht nur im Link (nach #), der Server kann ihn nicht lesen.
share-encrypted-password = Ende-zu-Ende-verschlüsselt: Der Schlüssel steht nur im Link (nach #), der Server kann ihn nicht lesen; Leser brauchen zusätzlich das Passwort.
share-not-encrypted = Nicht verschlüsselt: Der Server speichert ihn so, wie er gesendet wurde.
share-team = Team: Nur Ihr Mandant (seine Tokens und angemeldeten Mitglieder) kann ihn lesen.
share-me = Nur ich: Nur Sie, angemeldet, können ihn lesen.
share-unlisted = Nicht gelistet, aber nicht privat: Jeder mit dem Link kann ihn lesen.
shortcuts-title = Tastenkürzel
shortcut-raw = Rohtext
shortcut-copy = Den Paste kopieren
shortcut-link = Den Link kopieren
shortcut-share = Teilen: Link, QR-Code und Übersicht
shortcut-new = Neuer Paste
shortcut-wrap = Lange Zeilen umbrechen an oder aus
shortcut-help = Diese Hilfe
link-copied = Link kopiert.
link-not-copied = Der Link konnte nicht kopiert werden.
delete-token-differs = Dieser Link enthält ein anderes Lösch-Token als das, das dieser Browser für den Paste gespeichert hat; das gespeicherte bleibt erhalten.
delete-confirm = Zum Löschen erneut klicken
deleted = Gelöscht
deleted-text = Der Paste ist vom Server entfernt.
delete-token-refused = Der Server hat das Lösch-Token abgelehnt, das dieser Browser für den Paste hatte.
delete-failed = Der Paste konnte nicht gelöscht werden; versuchen Sie es erneut.
paste-gone = Dieser Paste ist weg: Er ist abgelaufen, wurde gelöscht oder schon angezeigt.
show = Anzeige
rendered = Gerendert
source = Quelltext
decrypted-title = In diesem Browser entschlüsselt; der Server hat nur den Geheimtext
decrypted-badge = Ende-zu-Ende-verschlüsselt
language-detected = { $language } (erkannt)
clone-too-large = Dieser Paste ist zu groß, um ihn in den Editor zu kopieren.
sealed-paste-is-file = Dieser Paste ist eine Datei ({ $name }, { $size }). Speichern Sie sie mit „Herunterladen“.
sealed-file-not-shown = Diese Datei ({ $type }, { $size }) wird hier nicht angezeigt: Speichern Sie sie mit „Herunterladen“.
sealed-file-truncated = Diese Seite zeigt nur die ersten { $lines } Zeilen oder { $size } dieser Datei; „Herunterladen“ speichert alles.
burn-no-key = Dieser Link hat keinen Schlüssel (den Teil nach #), daher konnte der Paste nicht entschlüsselt werden. Er wurde nicht angezeigt; bitten Sie den Absender um den vollständigen Link.
burn-destroyed = Dieser Paste wurde jetzt auf dem Server zerstört. Er existiert nur noch in diesem Tab: Kopieren oder laden Sie herunter, was Sie brauchen, bevor Sie gehen.
checking-password = Passwort wird geprüft…
checking-key = Schlüssel wird geprüft…
revealing = Wird angezeigt…
decrypting = Wird entschlüsselt…
wrong-password = Falsches Passwort. Prüfen Sie es und versuchen Sie es erneut.
wrong-password-intact = Falsches Passwort. Prüfen Sie es und versuchen Sie es erneut; der Paste ist unversehrt.
no-key = Dieser Paste ist Ende-zu-Ende-verschlüsselt, und der Link hat keinen Schlüssel (den Teil nach #). Bitten Sie den Absender um den vollständigen Link.
bad-key = Der Schlüssel in diesem Link ist beschädigt oder unvollständig (es sind die 43 Zeichen nach #). Kopieren Sie den ganzen Link erneut.
key-refused = Der Schlüssel dieses Links öffnet den Paste nicht: Der Link ist unvollständig oder wurde verändert. Kopieren Sie den ganzen Link erneut.
key-refused-intact = Der Schlüssel dieses Links öffnet den Paste nicht: Der Link ist unvollständig oder wurde verändert. Der Paste ist unversehrt; kopieren Sie den ganzen Link erneut.
cannot-decrypt = Entschlüsseln nicht möglich: { $reason }.
envelope-bad_key = Der Schlüssel im Link ist ungültig
envelope-malformed_plaintext = Die entschlüsselten Daten sind fehlerhaft
envelope-not_envelope = Dies ist kein verschlüsselter snip-Paste, oder er ist beschädigt
envelope-unsupported = Dieser Browser oder diese snip-Version kann ihn nicht lesen (Verschlüsselung braucht HTTPS oder http://localhost)
envelope-too_many_iterations = Der Paste verlangt mehr Runden der Schlüsselableitung als erlaubt
envelope-password_required = Dieser Paste ist mit einem Passwort geschützt
envelope-auth_failed = Falscher Schlüssel oder falsches Passwort: Der Link ist unvollständig, oder der Paste wurde manipuliert
find-placeholder = Im Paste suchen
find-label = Im ganzen Paste suchen
find-previous = Vorheriger Treffer
find-next = Nächster Treffer
find-none = Kein Treffer
find-position = { $n } von { $count }
find-position-more = { $n } von { $count }+
rest-loading = Der Rest des Paste wird geladen…
rest-progress = Der Rest des Paste wird geladen… { $done } von { $total }
rest-no-answer = Der Rest des Paste konnte nicht geladen werden (der Server hat nicht geantwortet). Er liegt unter { $url }.
rest-refused = Der Rest des Paste konnte nicht geladen werden (der Server antwortete { $status }). Er liegt unter { $url }.
remote-image = Bild von { $host }: { $alt } (zum Öffnen klicken)
image-not-shown = Bild nicht angezeigt: { $alt }
task-done = erledigt
task-not-done = nicht erledigt
my-browser-title = In diesem Browser erstellt
encrypted-paste-id = Verschlüsselter Paste { $id }
keep-keys = Schlüssel der in diesem Browser erstellten verschlüsselten Pastes merken
keep-keys-hint = Dann öffnen ihre Links hier sie. Jeder, der dieses Browserprofil benutzen kann, kann sie dann auch lesen; Ausschalten vergisst alle gemerkten Schlüssel. Der Server sieht die Schlüssel nie.
deleted-id = { $id } gelöscht.
delete-failed-id = { $id } konnte nicht gelöscht werden: { $reason }
