# رسائل snip باللغة العربية (الرسائل نفسها في locales/en.ftl).

## التخطيط

skip-to-content = انتقل إلى المحتوى
new-paste = لصقة جديدة
account = الحساب
my-pastes = لصقاتي
sign-in = تسجيل الدخول
sign-out = تسجيل الخروج
switch-team-to = التبديل إلى
switch-team = تبديل
no-team-header = أنت لا تنتمي إلى أي فريق على هذا الخادم: يمكنك فعل ما يمكن لأي شخص بلا حساب فعله فقط.
theme = المظهر
theme-auto = تلقائي
theme-light = فاتح
theme-dark = داكن
language = اللغة
language-change = تغيير
third-party-licences = تراخيص الأطراف الثالثة

## الأحجام والأوقات

size-bytes = { $n ->
    [zero] { $n } بايت
    [one] بايت واحد
    [two] بايتان
    [few] { $n } بايتات
   *[other] { $n } بايت
}
size-kib = { $n } كيلوبايت
size-mib = { $n } ميغابايت
size-gib = { $n } غيغابايت
size-tib = { $n } تيرابايت
time-utc = { $date } { $time } UTC

## صفحات الأخطاء

error-mistyped-id = يبدو أن هذا الرابط منسوخ بشكل خاطئ
error-mistyped-id-text = الحرف الأخير في كل رابط من snip يتحقق من بقية الحروف، وهو لا يتطابق في هذا الرابط: على الأرجح تغيّر حرف أو سقط أو تبدّل موضعه أثناء النسخ. قارن الرابط بالأصل.
error-paste-not-found = اللصقة غير موجودة
error-paste-not-found-text = لا توجد لصقة على هذا العنوان. ربما انتهت صلاحيتها، أو حُذفت، أو (الحذف بعد القراءة) قُرئت بالفعل.
error-page-not-found = الصفحة غير موجودة
error-page-not-found-text = لا توجد صفحة على هذا العنوان. تحقّق من الرابط الذي اتبعته، أو أنشئ لصقة جديدة.
error-sign-in-needed = يلزم تسجيل الدخول
error-sign-in-needed-text = يتطلب هذا الخادم هنا مستأجرًا مسجّل الدخول.
error-sign-in-with-token = سجّل الدخول برمز API
error-too-large = كبير جدًا
error-too-large-text = اللصقة أكبر مما يقبله هذا الخادم.
error-slow-down = تمهّل
error-slow-down-text = وصلت منك طلبات كثيرة جدًا في وقت قصير. انتظر لحظة، ثم حاول مرة أخرى.
error-other = خطأ { $status }
create-new-paste = أنشئ لصقة جديدة

## لصقة جديدة

lifetime-never = أبدًا
lifetime-seconds = { $n ->
    [one] ثانية واحدة
    [two] ثانيتان
    [few] { $n } ثوانٍ
   *[other] { $n } ثانية
}
lifetime-minutes = { $n ->
    [one] دقيقة واحدة
    [two] دقيقتان
    [few] { $n } دقائق
   *[other] { $n } دقيقة
}
lifetime-hours = { $n ->
    [one] ساعة واحدة
    [two] ساعتان
    [few] { $n } ساعات
   *[other] { $n } ساعة
}
lifetime-days = { $n ->
    [one] يوم واحد
    [two] يومان
    [few] { $n } أيام
   *[other] { $n } يومًا
}
lifetime-weeks = { $n ->
    [one] أسبوع واحد
    [two] أسبوعان
    [few] { $n } أسابيع
   *[other] { $n } أسبوعًا
}
lifetime-years = { $n ->
    [one] سنة واحدة
    [two] سنتان
    [few] { $n } سنوات
   *[other] { $n } سنة
}
new-read-only = سجّل هذا المتصفح الدخول برمز للقراءة فقط: يمكنه قراءة لصقات المستأجر وسردها، لا إنشاءها.
new-sign-in-needed = لا يقبل هذا الخادم اللصقات إلا من المستخدمين المسجّلين.
new-no-team = أنت لا تنتمي إلى أي فريق على هذا الخادم، وهو لا يقبل اللصقات إلا من الفرق.
files = الملفات
remove-this-file = أزل هذا الملف
paste-content = محتوى اللصقة
editor-placeholder = الصق أو اكتب هنا، أو أفلت ملفًا
attached = المرفق:
remove = إزالة
option-language = لغة البرمجة
auto-detect = اكتشاف تلقائي
option-file-name = اسم الملف
optional = اختياري
option-expires = تنتهي صلاحيتها
burn-after-reading = الحذف بعد القراءة
option-visibility = الظهور
visibility-unlisted-choice = غير مُدرجة (كل من لديه الرابط)
visibility-team-choice = الفريق (مستأجري فقط)
visibility-me-choice = أنا فقط
encrypt = تشفير
password-optional = كلمة المرور (اختيارية)
attach-file = أرفق ملفًا
add-file = أضف ملفًا
paste-from-clipboard = الصق من الحافظة
create-paste = أنشئ اللصقة
shortcut-create = Ctrl+Enter
editor-hint = يضيف Tab مسافة بادئة (ويزيلها Shift+Tab)؛ واضغط Esc ثم Tab للخروج من المحرر. حتى { $size }.
paste-created = أُنشئت اللصقة
link = الرابط
copy = نسخ
open = فتح
qr-code = رمز QR للرابط
delete-link = رابط الحذف
delete-link-hint = يستطيع أي شخص لديه هذا الرابط حذف اللصقة. ويتذكره هذا المتصفح أيضًا، لذا تعرض اللصقة هنا زر حذف.

## عرض اللصقة

encrypted-paste = لصقة مشفّرة
paste-actions = إجراءات اللصقة
file-actions = { $name }: الإجراءات
download = تنزيل
raw = نص خام
wrap = التفاف الأسطر
share = مشاركة
new-paste-from-this = لصقة جديدة من هذه
delete = حذف
created = أُنشئت في
by = بواسطة
expires = تنتهي في
never-expires = لا تنتهي صلاحيتها
password = كلمة المرور
burn-needs-password = تحتاج هذه اللصقة ({ $size }) إلى كلمة مرور، وستُتلف فور فتحها. لن يتمكن أحد، ولا أنت، من فتح هذا الرابط مرة أخرى. تُرفض كلمة المرور الخاطئة وتبقى اللصقة سليمة.
burn-text = ستُتلف هذه اللصقة ({ $size }) فور عرضها. لن يتمكن أحد، ولا أنت، من فتح هذا الرابط مرة أخرى.
burn-open-with-password = افتح بكلمة المرور (ستُتلف)
burn-reveal = اعرض (ستُتلف)
encrypted-noscript-burn = هذه اللصقة مشفّرة من طرف إلى طرف: تُفك في متصفحك بالمفتاح الموجود في الرابط، وهذا يتطلب JavaScript. من دونه لا يمكن عرض اللصقة، لذا يتركها الزر سليمة.
encrypted-noscript = هذه اللصقة مشفّرة من طرف إلى طرف: تُفك في متصفحك بالمفتاح الموجود في الرابط، وهذا يتطلب JavaScript.
encrypted-cli = أو اقرأها باستخدام:
truncated = تعرض هذه الصفحة أول { $lines } سطر فقط؛ اللصقة كاملة ({ $size }) موجودة في:
image = صورة
paste-is-file = هذه اللصقة ملف ({ $name }، { $size }).
download-it = نزّلها
unlock-prompt = هذه اللصقة محمية بكلمة مرور:
decrypt = فك التشفير
download-all-zip = نزّل الكل (zip)
file-truncated = تعرض هذه الصفحة أول { $lines } سطر فقط من هذا الملف؛ الملف كاملًا ({ $size }) موجود في:
file-not-shown = لا يُعرض هذا الملف ({ $type }، { $size }) هنا؛ اقرأه من:
raw-link = رابطه الخام
embed-file-not-shown = لا يُعرض هذا الملف هنا.
embed-see-whole = اعرضها كاملة
embed-paste-is-file = هذه اللصقة ملف ({ $type }، { $size }).
embed-open-it = افتحها

## تسجيل الدخول

signed-out-provider = سجّلت الخروج من snip. ربما ما زلت مسجّل الدخول لدى مؤسستك:
sign-out-there-too = سجّل الخروج هناك أيضًا
sign-in-with-organisation = سجّل الدخول عبر مؤسستك
sign-in-token-text = سجّل الدخول برمز API خاص بمستأجرك (يعطيك إياه المسؤول). لا يحتفظ المتصفح إلا بملف تعريف ارتباط للجلسة؛ ولا يُخزَّن الرمز.
or-sign-in-token-text = أو سجّل الدخول برمز API خاص بمستأجرك (يعطيك إياه المسؤول). لا يحتفظ المتصفح إلا بملف تعريف ارتباط للجلسة؛ ولا يُخزَّن الرمز.
sign-in-unknown-token = هذا الرمز غير معروف أو أُلغي.
sign-in-expired = انتهت صلاحية هذا الرمز.
api-token = رمز API

## لصقاتي

my-local-text = اللصقات التي أُنشئت في هذا المتصفح، من روابط الحذف التي يتذكرها.
my-local-sign-in = سجّل الدخول لرؤية جميع لصقات مستأجرك
my-no-team = أنت لا تنتمي إلى أي فريق على هذا الخادم، لذا لا توجد لصقات فريق لعرضها: هذه هي اللصقات التي أُنشئت في هذا المتصفح، من روابط الحذف التي يتذكرها.
my-local-empty = لا يتذكر هذا المتصفح أي لصقات.
needs-javascript = تتطلب هذه القائمة JavaScript.
column-paste = اللصقة
column-name = الاسم
column-size = الحجم
column-created = أُنشئت
column-expires = تنتهي
column-author = المؤلف
column-visibility = الظهور
column-burn = الحذف بعد القراءة
whose-pastes = لصقات من
scope-team = لصقات الفريق
scope-mine = لصقاتي
my-search-label = ابحث في الأسماء واللغات والنصوص
search = بحث
all-pastes = كل اللصقات
best-matches = أفضل النتائج لـ «{ $search }»
no-match = لا توجد لصقة مطابقة.
no-pastes-yet = لا توجد لصقات بعد.
create-one = أنشئ واحدة
never = أبدًا
yes = نعم
no = لا
visibility-unlisted = غير مُدرجة
visibility-team = الفريق
visibility-me = أنا فقط
more-matches = مزيد من النتائج
older-pastes = لصقات أقدم

## رسائل المتصفح

no-answer = لم يستجب الخادم. تحقّق من اتصالك وحاول مرة أخرى.
server-no-answer = لم يستجب الخادم
server-answered = أجاب الخادم { $status }.
copied = نُسخ
copy-failed = تعذّر النسخ
close = إغلاق
cancel = إلغاء
binary = ثنائي
files-count = { $count ->
    [one] ملف واحد
    [two] ملفان
    [few] { $count } ملفات
   *[other] { $count } ملفًا
}
progress-of = { $done } من { $total }
auto-detected = اكتشاف تلقائي: { $language }
encryption-needs-https = يتطلب التشفير HTTPS (أو http://localhost)
clipboard-empty = الحافظة فارغة.
clipboard-refused = لم يسمح المتصفح بقراءة الحافظة؛ اضغط Ctrl+V (⌘V) في المحرر بدلًا من ذلك.
files-added = { $count ->
    [one] أُضيف ملف واحد.
    [two] أُضيف ملفان، لكل منهما تبويب.
    [few] أُضيفت { $count } ملفات، لكل ملف تبويب.
   *[other] أُضيف { $count } ملفًا، لكل ملف تبويب.
}
file-n = الملف { $n }
remove-named = أزل { $name }
remove-file-n = أزل الملف { $n }
file-loaded = حُمّل { $name } في المحرر.
attachment-name = { $name } ({ $type }، { $size })
attachment-preview = معاينة الصورة المرفقة
cloned = نُسخت من اللصقة التي كنت تعرضها: عدّلها وأنشئ لصقة جديدة.
nothing-to-paste = لا يوجد شيء للصق بعد.
paste-too-large = حجم اللصقة { $size }؛ ولا يقبل هذا الخادم أكثر من { $max }.
files-too-large = حجم الملفات معًا { $size }؛ ولا يقبل هذا الخادم أكثر من { $max }.
file-empty = الملف { $n } فارغ.
file-unnamed = الملف { $n } بلا اسم (اللصقة متعددة الملفات تحتاج اسمًا لكل ملف).
file-name-taken = الملف { $n } يحمل الاسم { $name } نفسه لملف آخر.
create-failed = تعذّر إنشاء اللصقة. { $reason }
create-too-large = كبيرة جدًا: { $message }
create-slow-down = لصقات كثيرة جدًا الآن؛ انتظر لحظة. { $message }
create-server-full = الخادم ممتلئ: { $message }
create-refused = { $message }
uploading = جارٍ الرفع…
upload-cancelled = أُلغي الرفع؛ ولم يُنشأ شيء.
upload-progress = تقدّم الرفع
encrypting = جارٍ التشفير…
encrypting-password = جارٍ التشفير (اشتقاق المفتاح من كلمة المرور)…
share-title = شارك هذه اللصقة
share-expires-relative = تنتهي صلاحيتها { $relative } ({ $absolute }).
share-expires = تنتهي صلاحيتها في { $absolute }.
share-never-expires = لا تنتهي صلاحيتها.
share-burns = تُحذف بعد القراءة: يُتلفها أول قارئ.
share-stays = تبقى قابلة للقراءة حتى ذلك الحين (دون حذف بعد القراءة).
share-encrypted = مشفّرة من طرف إلى طرف: المفتاح موجود في الرابط فقط (بعد #)، ولا يستطيع الخادم قراءتها.
share-encrypted-password = مشفّرة من طرف إلى طرف: المفتاح موجود في الرابط فقط (بعد #)، ولا يستطيع الخادم قراءتها؛ ويحتاج القرّاء أيضًا إلى كلمة المرور.
share-not-encrypted = غير مشفّرة: يخزّنها الخادم كما أُرسلت.
share-team = الفريق: لا يقرؤها إلا مستأجرك (رموزه وأعضاؤه المسجّلون).
share-me = أنا فقط: لا يقرؤها أحد سواك وأنت مسجّل الدخول.
share-unlisted = غير مُدرجة، لكنها ليست خاصة: يستطيع أي شخص لديه الرابط قراءتها.
shortcuts-title = اختصارات لوحة المفاتيح
shortcut-raw = النص الخام
shortcut-copy = انسخ اللصقة
shortcut-link = انسخ الرابط
shortcut-share = مشاركة: الرابط ورمز QR والملخص
shortcut-new = لصقة جديدة
shortcut-wrap = تشغيل التفاف الأسطر الطويلة أو إيقافه
shortcut-help = هذه المساعدة
link-copied = نُسخ الرابط.
link-not-copied = تعذّر نسخ الرابط.
delete-token-differs = يحمل هذا الرابط رمز حذف مختلفًا عن الرمز الذي حفظه هذا المتصفح للّصقة؛ ويُحتفظ بالرمز المحفوظ.
delete-confirm = انقر مرة أخرى للحذف
deleted = حُذفت
deleted-text = لم تعد اللصقة موجودة على الخادم.
delete-token-refused = رفض الخادم رمز الحذف الذي كان لدى هذا المتصفح للّصقة.
delete-failed = تعذّر حذف اللصقة؛ حاول مرة أخرى.
paste-gone = لم تعد هذه اللصقة موجودة: انتهت صلاحيتها، أو حُذفت، أو عُرضت بالفعل.
show = العرض
rendered = منسّق
source = المصدر
decrypted-title = فُك تشفيرها في هذا المتصفح؛ ولا يحتفظ الخادم إلا بالنص المشفّر
decrypted-badge = مشفّرة من طرف إلى طرف
language-detected = { $language } (مُكتشفة)
clone-too-large = هذه اللصقة أكبر من أن تُنسخ إلى المحرر.
sealed-paste-is-file = هذه اللصقة ملف ({ $name }، { $size }). استخدم «تنزيل» لحفظه.
sealed-file-not-shown = لا يُعرض هذا الملف ({ $type }، { $size }) هنا: استخدم «تنزيل» لحفظه.
sealed-file-truncated = تعرض هذه الصفحة أول { $lines } سطر أو { $size } فقط من هذا الملف؛ ويحفظه «تنزيل» كاملًا.
burn-no-key = لا يحتوي هذا الرابط على مفتاح (الجزء الذي بعد #)، لذا تعذّر فك تشفير اللصقة. لم تُعرض بعد؛ اطلب الرابط الكامل من المرسل.
burn-destroyed = أُتلفت هذه اللصقة الآن على الخادم. ولم تعد موجودة إلا في هذا التبويب: انسخ ما تحتاجه أو نزّله قبل المغادرة.
checking-password = جارٍ التحقق من كلمة المرور…
checking-key = جارٍ التحقق من المفتاح…
revealing = جارٍ العرض…
decrypting = جارٍ فك التشفير…
wrong-password = كلمة المرور خاطئة. تحقّق منها وحاول مرة أخرى.
wrong-password-intact = كلمة المرور خاطئة. تحقّق منها وحاول مرة أخرى؛ اللصقة سليمة.
no-key = هذه اللصقة مشفّرة من طرف إلى طرف، والرابط لا يحتوي على مفتاح (الجزء الذي بعد #). اطلب الرابط الكامل من المرسل.
bad-key = المفتاح في هذا الرابط تالف أو ناقص (وهو الأحرف الـ 43 التي بعد #). انسخ الرابط كاملًا مرة أخرى.
key-refused = مفتاح هذا الرابط لا يفتح اللصقة: الرابط ناقص أو تغيّر. انسخ الرابط كاملًا مرة أخرى.
key-refused-intact = مفتاح هذا الرابط لا يفتح اللصقة: الرابط ناقص أو تغيّر. اللصقة سليمة؛ انسخ الرابط كاملًا مرة أخرى.
cannot-decrypt = تعذّر فك التشفير: { $reason }.
envelope-bad_key = المفتاح في الرابط غير صالح
envelope-malformed_plaintext = البيانات بعد فك التشفير مشوّهة
envelope-not_envelope = هذه ليست لصقة مشفّرة من snip، أو أنها تالفة
envelope-unsupported = لا يستطيع هذا المتصفح أو هذا الإصدار من snip قراءتها (يتطلب التشفير HTTPS أو http://localhost)
envelope-too_many_iterations = تطلب اللصقة جولات لاشتقاق المفتاح أكثر من المسموح
envelope-password_required = هذه اللصقة محمية بكلمة مرور
envelope-auth_failed = مفتاح أو كلمة مرور خاطئة: الرابط ناقص، أو عُبث باللصقة
find-placeholder = ابحث في اللصقة
find-label = ابحث في اللصقة كلها
find-previous = النتيجة السابقة
find-next = النتيجة التالية
find-none = لا نتائج
find-position = { $n } من { $count }
find-position-more = { $n } من { $count }+
rest-loading = جارٍ تحميل بقية اللصقة…
rest-progress = جارٍ تحميل بقية اللصقة… { $done } من { $total }
rest-no-answer = تعذّر تحميل بقية اللصقة (لم يستجب الخادم). وهي موجودة في { $url }.
rest-refused = تعذّر تحميل بقية اللصقة (أجاب الخادم { $status }). وهي موجودة في { $url }.
remote-image = صورة من { $host }: { $alt } (انقر لفتحها)
image-not-shown = صورة غير معروضة: { $alt }
task-done = منجزة
task-not-done = غير منجزة
my-browser-title = أُنشئت في هذا المتصفح
encrypted-paste-id = لصقة مشفّرة { $id }
keep-keys = تذكّر مفاتيح اللصقات المشفّرة التي أُنشئت في هذا المتصفح
keep-keys-hint = عندها تفتحها روابطها هنا. ويستطيع أي شخص يستخدم ملف تعريف هذا المتصفح قراءتها أيضًا؛ وإيقاف هذا الخيار ينسى كل المفاتيح المحفوظة. لا يرى الخادم المفاتيح أبدًا.
deleted-id = حُذفت { $id }.
delete-failed-id = تعذّر حذف { $id }: { $reason }
