//! The languages pages speak: one Fluent catalogue per language
//! (`locales/*.ftl`, compiled in), which the templates read through
//! [`Lang::t`] and its kin and the browser code reads through
//! `web/src/i18n.js` (the same files, bundled). Which language a request
//! gets is [`super::language`]'s to decide.
//!
//! A message missing from a catalogue falls back to English, and one
//! missing from English shows its id, so a page never fails to render; the
//! tests below keep every catalogue complete. Numbers in messages are
//! Fluent numbers (plural forms follow the language's rules); sizes are
//! formatted here with the language's decimal separator and unit names.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::LazyLock;

use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource, FluentValue};
use unic_langid::LanguageIdentifier;

use crate::core::units::format_size;

/// A language of the pages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Lang {
    #[default]
    En,
    De,
    Fr,
    Es,
    PtBr,
    Ja,
    ZhCn,
    Ar,
    /// `en-XA`: English with every letter accented, so that text not taken
    /// from the catalogue stands out. Only
    /// the `lang` cookie chooses it (the tests' way); no menu offers it.
    Pseudo,
}

/// Every language, in the order the language menu lists them.
pub const MENU: [Lang; 8] = [
    Lang::En,
    Lang::De,
    Lang::Fr,
    Lang::Es,
    Lang::PtBr,
    Lang::Ja,
    Lang::ZhCn,
    Lang::Ar,
];

/// Every language with a catalogue of its own.
const CATALOGUES: [(Lang, &str); 8] = [
    (Lang::En, include_str!("../../../locales/en.ftl")),
    (Lang::De, include_str!("../../../locales/de.ftl")),
    (Lang::Fr, include_str!("../../../locales/fr.ftl")),
    (Lang::Es, include_str!("../../../locales/es.ftl")),
    (Lang::PtBr, include_str!("../../../locales/pt-BR.ftl")),
    (Lang::Ja, include_str!("../../../locales/ja.ftl")),
    (Lang::ZhCn, include_str!("../../../locales/zh-CN.ftl")),
    (Lang::Ar, include_str!("../../../locales/ar.ftl")),
];

type Bundle = FluentBundle<FluentResource>;

/// A language's bundle, and its messages without placeables formatted once
/// (most of a page's words), so that a page costs a lookup for each.
struct Catalogue {
    bundle: Bundle,
    plain: HashMap<String, String>,
}

/// The catalogues, in [`Lang`]'s order (the pseudo-locale's last), built
/// on first use.
static BUNDLES: LazyLock<Vec<Catalogue>> = LazyLock::new(|| {
    let mut bundles: Vec<Bundle> = CATALOGUES
        .iter()
        .map(|(lang, source)| bundle(*lang, source))
        .collect();
    let mut pseudo = bundle(Lang::Pseudo, CATALOGUES[0].1);
    pseudo.set_transform(Some(pseudo_text));
    bundles.push(pseudo);
    let ids: Vec<String> = FluentResource::try_new(CATALOGUES[0].1.to_owned())
        .unwrap_or_else(|(partial, _)| partial)
        .entries()
        .filter_map(|entry| match entry {
            fluent_syntax::ast::Entry::Message(message) => Some(message.id.name.to_owned()),
            _ => None,
        })
        .collect();
    bundles
        .into_iter()
        .map(|bundle| {
            let plain = ids
                .iter()
                .filter_map(|id| {
                    let pattern = bundle.get_message(id)?.value()?;
                    let mut errors = Vec::new();
                    let text = bundle.format_pattern(pattern, None, &mut errors);
                    errors.is_empty().then(|| (id.clone(), text.into_owned()))
                })
                .collect();
            Catalogue { bundle, plain }
        })
        .collect()
});

fn bundle(lang: Lang, source: &str) -> Bundle {
    let id: LanguageIdentifier = lang.tag().parse().unwrap_or_default();
    let mut bundle = FluentBundle::new_concurrent(vec![id]);
    // Unicode isolation marks keep a placeable's direction apart from the
    // text around it; only a right-to-left language needs them.
    bundle.set_use_isolating(lang.dir() == "rtl");
    // A catalogue that does not parse fails the tests; what parses is used.
    let resource =
        FluentResource::try_new(source.to_owned()).unwrap_or_else(|(partial, _)| partial);
    let _ = bundle.add_resource(resource);
    bundle
}

impl Lang {
    /// Its BCP 47 tag (`<html lang>`, the `lang` cookie's value).
    pub fn tag(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::De => "de",
            Self::Fr => "fr",
            Self::Es => "es",
            Self::PtBr => "pt-BR",
            Self::Ja => "ja",
            Self::ZhCn => "zh-CN",
            Self::Ar => "ar",
            Self::Pseudo => "en-XA",
        }
    }

    /// The language whose tag is `tag` (as the cookie holds it), if any.
    pub fn from_tag(tag: &str) -> Option<Self> {
        MENU.into_iter()
            .chain([Self::Pseudo])
            .find(|lang| lang.tag().eq_ignore_ascii_case(tag))
    }

    /// Its name in itself, as the language menu shows it.
    pub fn name(self) -> &'static str {
        match self {
            Self::En => "English",
            Self::De => "Deutsch",
            Self::Fr => "Français",
            Self::Es => "Español",
            Self::PtBr => "Português (Brasil)",
            Self::Ja => "日本語",
            Self::ZhCn => "简体中文",
            Self::Ar => "العربية",
            Self::Pseudo => "[Ƥšéûðö]",
        }
    }

    /// Its writing direction (`<html dir>`).
    pub fn dir(self) -> &'static str {
        match self {
            Self::Ar => "rtl",
            _ => "ltr",
        }
    }

    fn catalogue(self) -> &'static Catalogue {
        let index = match self {
            Self::Pseudo => CATALOGUES.len(),
            lang => CATALOGUES.iter().position(|(l, _)| *l == lang).unwrap_or(0),
        };
        &BUNDLES[index]
    }

    fn bundle(self) -> &'static Bundle {
        &self.catalogue().bundle
    }

    /// The message `id` with `args`, in this language (or English, or the
    /// id itself, if the catalogue lacks it).
    pub fn message(self, id: &str, args: Option<&FluentArgs<'_>>) -> String {
        for bundle in [self.bundle(), Lang::En.bundle()] {
            if let Some(pattern) = bundle.get_message(id).and_then(|m| m.value()) {
                let mut errors = Vec::new();
                return bundle
                    .format_pattern(pattern, args, &mut errors)
                    .into_owned();
            }
        }
        id.to_owned()
    }

    /// The message `id` (one without placeables: formatted once).
    pub fn t<'a>(&self, id: &'a str) -> Cow<'a, str> {
        match self.catalogue().plain.get(id) {
            Some(text) => Cow::Borrowed(text.as_str()),
            None => Cow::Owned(self.message(id, None)),
        }
    }

    /// The message `id` with one argument.
    pub fn t1(&self, id: &str, name: &str, value: impl Arg) -> String {
        let mut args = FluentArgs::with_capacity(1);
        args.set(name.to_owned(), value.value());
        self.message(id, Some(&args))
    }

    /// The message `id` with two arguments.
    pub fn t2(&self, id: &str, n1: &str, v1: impl Arg, n2: &str, v2: impl Arg) -> String {
        let mut args = FluentArgs::with_capacity(2);
        args.set(n1.to_owned(), v1.value());
        args.set(n2.to_owned(), v2.value());
        self.message(id, Some(&args))
    }

    /// A size for people in this language: binary units, one decimal
    /// unless whole ([`format_size`]'s rule), the language's decimal
    /// separator and unit names.
    pub fn size(&self, bytes: impl std::borrow::Borrow<u64>) -> String {
        let bytes = *bytes.borrow();
        if bytes < 1024 {
            return self.t1("size-bytes", "n", bytes);
        }
        let english = format_size(bytes);
        let (number, unit) = english.split_once(' ').unwrap_or((&english, "KiB"));
        let number = match self {
            Self::De | Self::Fr | Self::Es | Self::PtBr => Cow::Owned(number.replace('.', ",")),
            _ => Cow::Borrowed(number),
        };
        let id = match unit {
            "KiB" => "size-kib",
            "MiB" => "size-mib",
            "GiB" => "size-gib",
            _ => "size-tib",
        };
        self.t1(id, "n", number.as_ref())
    }
}

/// A value a message's placeable shows.
pub trait Arg {
    fn value(&self) -> FluentValue<'static>;
}

impl Arg for str {
    fn value(&self) -> FluentValue<'static> {
        FluentValue::from(self.to_owned())
    }
}

impl Arg for String {
    fn value(&self) -> FluentValue<'static> {
        FluentValue::from(self.clone())
    }
}

impl<T: Arg + ?Sized> Arg for &T {
    fn value(&self) -> FluentValue<'static> {
        (**self).value()
    }
}

macro_rules! number_arg {
    ($($t:ty),*) => {$(
        impl Arg for $t {
            fn value(&self) -> FluentValue<'static> {
                FluentValue::from(*self)
            }
        }
    )*};
}
number_arg!(u16, u64, usize);

/// The pseudo-locale's text: ASCII letters accented, so that any English
/// left outside the catalogue is plain to see (`web/src/i18n.js` does the
/// same in the browser).
pub fn pseudo_text(text: &str) -> Cow<'static, str> {
    const FROM: &str = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const TO: [char; 52] = [
        'á', 'ƀ', 'ç', 'ð', 'é', 'ƒ', 'ĝ', 'ĥ', 'í', 'ĵ', 'ķ', 'ĺ', 'ɱ', 'ñ', 'ó', 'þ', 'ǫ', 'ŕ',
        'š', 'ţ', 'û', 'ṽ', 'ŵ', 'ẋ', 'ý', 'ž', 'Á', 'Ɓ', 'Ç', 'Ð', 'É', 'Ƒ', 'Ĝ', 'Ĥ', 'Í', 'Ĵ',
        'Ķ', 'Ĺ', 'Ṁ', 'Ñ', 'Ó', 'Þ', 'Ǫ', 'Ŕ', 'Š', 'Ţ', 'Û', 'Ṽ', 'Ŵ', 'Ẋ', 'Ý', 'Ž',
    ];
    Cow::Owned(
        text.chars()
            .map(|c| FROM.find(c).map_or(c, |i| TO[i]))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use fluent_bundle::FluentResource;
    use fluent_syntax::ast::{Entry, Expression, InlineExpression, Pattern, PatternElement};

    use super::*;

    /// The variables a pattern uses, and whether it has a selector.
    fn variables(pattern: &Pattern<&str>, out: &mut BTreeSet<String>) {
        for element in &pattern.elements {
            if let PatternElement::Placeable { expression } = element {
                expression_variables(expression, out);
            }
        }
    }

    fn expression_variables(expression: &Expression<&str>, out: &mut BTreeSet<String>) {
        match expression {
            Expression::Inline(inline) => inline_variables(inline, out),
            Expression::Select { selector, variants } => {
                inline_variables(selector, out);
                for variant in variants {
                    variables(&variant.value, out);
                }
            }
        }
    }

    fn inline_variables(inline: &InlineExpression<&str>, out: &mut BTreeSet<String>) {
        match inline {
            InlineExpression::VariableReference { id } => {
                out.insert(id.name.to_owned());
            }
            InlineExpression::Placeable { expression } => expression_variables(expression, out),
            InlineExpression::FunctionReference { arguments, .. } => {
                for argument in &arguments.positional {
                    inline_variables(argument, out);
                }
            }
            _ => {}
        }
    }

    /// Every message of a catalogue with the variables it uses.
    fn messages(source: &str, tag: &str) -> Vec<(String, BTreeSet<String>)> {
        let resource = FluentResource::try_new(source.to_owned())
            .unwrap_or_else(|(_, errors)| panic!("{tag}.ftl does not parse: {errors:?}"));
        resource
            .entries()
            .filter_map(|entry| match entry {
                Entry::Message(message) => {
                    let mut used = BTreeSet::new();
                    if let Some(value) = &message.value {
                        variables(value, &mut used);
                    }
                    Some((message.id.name.to_owned(), used))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_catalogue_parses_and_has_every_english_message_with_its_placeholders() {
        let english = messages(CATALOGUES[0].1, "en");
        assert!(english.len() > 100, "en.ftl has {} messages", english.len());
        for (lang, source) in &CATALOGUES[1..] {
            let theirs: std::collections::BTreeMap<_, _> =
                messages(source, lang.tag()).into_iter().collect();
            for (id, used) in &english {
                let Some(their_used) = theirs.get(id) else {
                    panic!("{}.ftl lacks {id}", lang.tag());
                };
                assert_eq!(their_used, used, "{}.ftl: {id}'s placeholders", lang.tag());
            }
            for id in theirs.keys() {
                assert!(
                    english.iter().any(|(en, _)| en == id),
                    "{}.ftl has {id}, which en.ftl does not",
                    lang.tag()
                );
            }
        }
    }

    #[test]
    fn messages_format_with_plurals_and_fall_back() {
        assert_eq!(Lang::En.t1("files-count", "count", 1usize), "1 file");
        assert_eq!(Lang::En.t1("files-count", "count", 3usize), "3 files");
        assert_eq!(Lang::De.t1("files-count", "count", 3usize), "3 Dateien");
        assert_eq!(Lang::En.t("no-such-message"), "no-such-message");
        assert_eq!(Lang::En.size(5), "5 bytes");
        assert_eq!(Lang::En.size(1), "1 byte");
        assert_eq!(Lang::De.size(1536), "1,5 KiB");
        assert_eq!(Lang::Fr.size(1536), "1,5 Kio");
        assert_eq!(Lang::Pseudo.t("new-paste"), "Ñéŵ þášţé");
    }

    #[test]
    fn tags_name_their_languages() {
        for lang in MENU.into_iter().chain([Lang::Pseudo]) {
            assert_eq!(Lang::from_tag(lang.tag()), Some(lang));
        }
        assert_eq!(Lang::from_tag("PT-br"), Some(Lang::PtBr));
        assert_eq!(Lang::from_tag("xx"), None);
    }
}
