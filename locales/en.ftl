# snip's messages in English: the reference catalogue. Every other
# locales/*.ftl has the same messages with the same placeholders (the
# tests check). Server templates and the browser code both read them.

## Layout

skip-to-content = Skip to content
new-paste = New paste
account = Account
my-pastes = My pastes
sign-in = Sign in
sign-out = Sign out
switch-team-to = Switch to
switch-team = Switch
no-team-header = You belong to no team on this server: you can do only what anyone without an account can.
theme = Theme
theme-auto = Auto
theme-light = Light
theme-dark = Dark
language = Language
language-change = Change
third-party-licences = third-party licences

## Sizes and times ($n is already formatted for the language)

size-bytes = { $n ->
    [one] { $n } byte
   *[other] { $n } bytes
}
size-kib = { $n } KiB
size-mib = { $n } MiB
size-gib = { $n } GiB
size-tib = { $n } TiB
time-utc = { $date } { $time } UTC

## Error pages

error-mistyped-id = This link looks mistyped
error-mistyped-id-text = The last character of every snip link checks the others, and this one does not match: a character was probably changed, dropped or swapped while copying. Check the link against the original.
error-paste-not-found = Paste not found
error-paste-not-found-text = There is no paste at this address. It may have expired, been deleted, or (burn after reading) already been read.
error-page-not-found = Page not found
error-page-not-found-text = There is no page at this address. Check the link you followed, or start a new paste.
error-sign-in-needed = Sign in needed
error-sign-in-needed-text = This server needs a signed-in tenant here.
error-sign-in-with-token = Sign in with an API token
error-too-large = Too large
error-too-large-text = The paste is larger than this server accepts.
error-slow-down = Slow down
error-slow-down-text = Too many requests came from you in a short time. Wait a moment, then try again.
error-other = Error { $status }
create-new-paste = Create a new paste

## New paste

lifetime-never = Never
lifetime-seconds = { $n ->
    [one] { $n } second
   *[other] { $n } seconds
}
lifetime-minutes = { $n ->
    [one] { $n } minute
   *[other] { $n } minutes
}
lifetime-hours = { $n ->
    [one] { $n } hour
   *[other] { $n } hours
}
lifetime-days = { $n ->
    [one] { $n } day
   *[other] { $n } days
}
lifetime-weeks = { $n ->
    [one] { $n } week
   *[other] { $n } weeks
}
lifetime-years = { $n ->
    [one] { $n } year
   *[other] { $n } years
}
new-read-only = This browser signed in with a read-only token: it can read and list the tenant's pastes, not create them.
new-sign-in-needed = This server takes pastes from signed-in users.
new-no-team = You belong to no team on this server, and it takes pastes only from teams.
files = Files
remove-this-file = Remove this file
paste-content = Paste content
editor-placeholder = Paste or type here, or drop a file
attached = Attached:
remove = Remove
option-language = Language
auto-detect = Auto-detect
option-file-name = File name
optional = optional
option-expires = Expires
burn-after-reading = Burn after reading
option-visibility = Visibility
visibility-unlisted-choice = Unlisted (anyone with the link)
visibility-team-choice = Team (only my tenant)
visibility-me-choice = Only me
encrypt = Encrypt
password-optional = Password (optional)
attach-file = Attach file
add-file = Add file
paste-from-clipboard = Paste from clipboard
create-paste = Create paste
shortcut-create = Ctrl+Enter
editor-hint = Tab indents (Shift+Tab outdents); Esc then Tab leaves the editor. Up to { $size }.
paste-created = Paste created
link = Link
copy = Copy
open = Open
qr-code = QR code of the link
delete-link = Delete link
delete-link-hint = Anyone with this link can delete the paste. This browser also remembers it, so the paste shows a Delete button here.

## Paste view

encrypted-paste = Encrypted paste
paste-actions = Paste actions
file-actions = { $name }: actions
download = Download
raw = Raw
wrap = Wrap
share = Share
new-paste-from-this = New paste from this
delete = Delete
created = created
by = by
expires = expires
never-expires = never expires
password = Password
burn-needs-password = This paste ({ $size }) needs a password, and it will be destroyed as soon as it is opened. Nobody, including you, will be able to open this link again. A wrong password is refused and leaves it intact.
burn-text = This paste ({ $size }) will be destroyed as soon as it is revealed. Nobody, including you, will be able to open this link again.
burn-open-with-password = Open with the password (it will be destroyed)
burn-reveal = Reveal (it will be destroyed)
encrypted-noscript-burn = This paste is end-to-end encrypted: it is decrypted in your browser with the key in the link, which needs JavaScript. Without it the paste cannot be shown, so the button leaves it intact.
encrypted-noscript = This paste is end-to-end encrypted: it is decrypted in your browser with the key in the link, which needs JavaScript.
encrypted-cli = Or read it with:
truncated = This page shows the first { $lines } lines only; the whole paste ({ $size }) is at:
image = image
paste-is-file = This paste is a file ({ $name }, { $size }).
download-it = Download it
unlock-prompt = This paste is protected by a password:
decrypt = Decrypt
download-all-zip = Download all (zip)
file-truncated = This page shows the first { $lines } lines of this file only; the whole file ({ $size }) is at:
file-not-shown = This file ({ $type }, { $size }) is not shown here; read it at:
raw-link = its raw link
embed-file-not-shown = This file is not shown here.
embed-see-whole = See it whole
embed-paste-is-file = This paste is a file ({ $type }, { $size }).
embed-open-it = Open it

## Sign-in

signed-out-provider = You are signed out of snip. You may still be signed in to your organisation:
sign-out-there-too = sign out there too
sign-in-with-organisation = Sign in with your organisation
sign-in-token-text = Sign in with an API token of your tenant (the administrator gives it to you). The browser keeps only a session cookie; the token is not stored.
or-sign-in-token-text = Or sign in with an API token of your tenant (the administrator gives it to you). The browser keeps only a session cookie; the token is not stored.
sign-in-unknown-token = That token is unknown or has been revoked.
sign-in-expired = That token has expired.
api-token = API token

## My pastes

my-local-text = Pastes created in this browser, from the delete links it remembers.
my-local-sign-in = Sign in to see all the pastes of your tenant
my-no-team = You belong to no team on this server, so there are no team pastes to show: here are the pastes created in this browser, from the delete links it remembers.
my-local-empty = This browser remembers no pastes.
needs-javascript = This list needs JavaScript.
column-paste = Paste
column-name = Name
column-size = Size
column-created = Created
column-expires = Expires
column-author = Author
column-visibility = Visibility
column-burn = Burn
whose-pastes = Whose pastes
scope-team = Team's
scope-mine = Mine
my-search-label = Search names, languages and text
search = Search
all-pastes = All pastes
best-matches = Best matches for “{ $search }”
no-match = No paste matches.
no-pastes-yet = No pastes yet.
create-one = Create one
never = never
yes = yes
no = no
visibility-unlisted = unlisted
visibility-team = team
visibility-me = me
more-matches = More matches
older-pastes = Older pastes

## The browser's messages (web/src)

no-answer = The server did not answer. Check your connection and try again.
server-no-answer = the server did not answer
server-answered = The server answered { $status }.
copied = Copied
copy-failed = Copy failed
close = Close
cancel = Cancel
binary = binary
files-count = { $count ->
    [one] { $count } file
   *[other] { $count } files
}
progress-of = { $done } of { $total }
# Editor
auto-detected = Auto-detect: { $language }
encryption-needs-https = Encryption needs HTTPS (or http://localhost)
clipboard-empty = The clipboard is empty.
clipboard-refused = The browser did not allow reading the clipboard; press Ctrl+V (⌘V) in the editor instead.
files-added = { $count ->
    [one] Added { $count } file.
   *[other] Added { $count } files, one tab each.
}
file-n = File { $n }
remove-named = Remove { $name }
remove-file-n = Remove file { $n }
file-loaded = Loaded { $name } into the editor.
attachment-name = { $name } ({ $type }, { $size })
attachment-preview = Preview of the attached image
cloned = Copied from the paste you were viewing: edit it and create a new paste.
nothing-to-paste = There is nothing to paste yet.
paste-too-large = The paste is { $size }; this server takes at most { $max }.
files-too-large = The files are { $size } together; this server takes at most { $max }.
file-empty = File { $n } is empty.
file-unnamed = File { $n } has no name (a paste of several files needs one for each).
file-name-taken = File { $n } has the name { $name } of another file.
create-failed = Could not create the paste. { $reason }
create-too-large = Too large: { $message }
create-slow-down = Too many pastes right now; wait a moment. { $message }
create-server-full = The server is full: { $message }
create-refused = { $message }
uploading = Uploading…
upload-cancelled = The upload was cancelled; nothing was created.
upload-progress = Upload progress
encrypting = Encrypting…
encrypting-password = Encrypting (deriving the key from the password)…
# Share panel
share-title = Share this paste
share-expires-relative = Expires { $relative } ({ $absolute }).
share-expires = Expires { $absolute }.
share-never-expires = Never expires.
share-burns = Burns after reading: the first reader destroys it.
share-stays = Stays readable until then (no burn after reading).
share-encrypted = End-to-end encrypted: the key is only in the link (after #), the server cannot read it.
share-encrypted-password = End-to-end encrypted: the key is only in the link (after #), the server cannot read it; readers also need the password.
share-not-encrypted = Not encrypted: the server stores it as sent.
share-team = Team: only your tenant (its tokens and signed-in members) can read it.
share-me = Only me: only you, signed in, can read it.
share-unlisted = Unlisted, not private: anyone with the link can read it.
# Paste view
shortcuts-title = Keyboard shortcuts
shortcut-raw = Raw text
shortcut-copy = Copy the paste
shortcut-link = Copy the link
shortcut-share = Share: link, QR code and summary
shortcut-new = New paste
shortcut-wrap = Wrap long lines on or off
shortcut-help = This help
link-copied = Link copied.
link-not-copied = Could not copy the link.
delete-token-differs = This link carries a different delete token than the one this browser saved for the paste; the saved one is kept.
delete-confirm = Click again to delete
deleted = Deleted
deleted-text = The paste is gone from the server.
delete-token-refused = The server refused the delete token this browser had for the paste.
delete-failed = Could not delete the paste; try again.
paste-gone = This paste is gone: it expired, was deleted, or was already revealed.
show = Show
rendered = Rendered
source = Source
decrypted-title = Decrypted in this browser; the server holds only ciphertext
decrypted-badge = end-to-end encrypted
language-detected = { $language } (detected)
clone-too-large = This paste is too large to copy into the editor.
sealed-paste-is-file = This paste is a file ({ $name }, { $size }). Use Download to save it.
sealed-file-not-shown = This file ({ $type }, { $size }) is not shown here: use Download to save it.
sealed-file-truncated = This page shows the first { $lines } lines or { $size } of this file only; Download saves all of it.
burn-no-key = This link has no key (the part after #), so the paste could not be decrypted. It has not been revealed; ask the sender for the complete link.
burn-destroyed = This paste has now been destroyed on the server. It exists only in this tab: copy or download what you need before leaving.
checking-password = Checking the password…
checking-key = Checking the key…
revealing = Revealing…
decrypting = Decrypting…
wrong-password = Wrong password. Check it and try again.
wrong-password-intact = Wrong password. Check it and try again; the paste is intact.
no-key = This paste is end-to-end encrypted and the link has no key (the part after #). Ask the sender for the complete link.
bad-key = The key in this link is damaged or incomplete (it is the 43 characters after #). Copy the whole link again.
key-refused = This link’s key does not open the paste: the link is incomplete or was changed. Copy the whole link again.
key-refused-intact = This link’s key does not open the paste: the link is incomplete or was changed. The paste is intact; copy the whole link again.
cannot-decrypt = Cannot decrypt: { $reason }.
envelope-bad_key = the key in the link is not valid
envelope-malformed_plaintext = the decrypted data is malformed
envelope-not_envelope = this is not a snip encrypted paste, or it is damaged
envelope-unsupported = this browser or this version of snip cannot read it (encryption needs HTTPS, or http://localhost)
envelope-too_many_iterations = the paste asks for more key-derivation rounds than allowed
envelope-password_required = this paste is protected by a password
envelope-auth_failed = wrong key or password: the link is incomplete, or the paste was tampered with
find-placeholder = Find in paste
find-label = Find in the whole paste
find-previous = Previous match
find-next = Next match
find-none = No match
find-position = { $n } of { $count }
find-position-more = { $n } of { $count }+
rest-loading = Loading the rest of the paste…
rest-progress = Loading the rest of the paste… { $done } of { $total }
rest-no-answer = The rest of the paste could not be loaded (the server did not answer). It is at { $url }.
rest-refused = The rest of the paste could not be loaded (the server answered { $status }). It is at { $url }.
remote-image = Image from { $host }: { $alt } (click to open)
image-not-shown = Image not shown: { $alt }
task-done = done
task-not-done = not done
# My pastes
my-browser-title = Made in this browser
encrypted-paste-id = Encrypted paste { $id }
keep-keys = Remember the keys of encrypted pastes made in this browser
keep-keys-hint = Then their links here open them. Anyone who can use this browser profile can read them too; turning this off forgets every key kept. The server never sees the keys.
deleted-id = Deleted { $id }.
delete-failed-id = Could not delete { $id }: { $reason }
