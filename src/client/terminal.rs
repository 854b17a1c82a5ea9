//! Text from a server made safe for a terminal: a paste, or a message,
//! may hold escape sequences that recolour, retitle or rewrite the screen
//! (or, on some terminals, answer back as if typed), and a carriage return
//! can hide a line behind another. Control characters other than newline
//! and tab (and the `\r` of a `\r\n`) are shown in caret notation, as
//! `cat -v` does (`ESC` as `^[`), C1 controls as `<U+009B>`.

use std::borrow::Cow;

/// `text` with every control character but newline, tab and the `\r` of a
/// `\r\n` made visible, and how many were; borrowed when there were none.
pub fn neutralise(text: &str) -> (Cow<'_, str>, usize) {
    let mut chars = text.char_indices().peekable();
    let mut shown = String::new();
    let mut copied = 0;
    let mut count = 0;
    while let Some((at, c)) = chars.next() {
        let kept = match c {
            '\n' | '\t' => true,
            '\r' => chars.peek().is_some_and(|&(_, next)| next == '\n'),
            c => !c.is_control(),
        };
        if kept {
            continue;
        }
        shown.push_str(&text[copied..at]);
        copied = at + c.len_utf8();
        count += 1;
        match u8::try_from(c) {
            // C0 and DEL: ^@ … ^_, and ^?.
            Ok(byte) if byte < 0x20 || byte == 0x7f => {
                shown.push('^');
                shown.push(char::from(byte ^ 0x40));
            }
            _ => shown.push_str(&format!("<U+{:04X}>", u32::from(c))),
        }
    }
    if count == 0 {
        return (Cow::Borrowed(text), 0);
    }
    shown.push_str(&text[copied..]);
    (Cow::Owned(shown), count)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Escape sequences, lone carriage returns, DEL and C1 controls become
    /// visible; text, newlines, tabs and CRLF line ends stay as they are.
    #[test]
    fn control_characters_become_visible() {
        let plain = "fn main() {\n\tprintln!(\"é ✓\");\r\n}\n";
        assert_eq!(neutralise(plain), (Cow::Borrowed(plain), 0));
        let hostile = "ok\x1b]0;pwned\x07\x1b[2J\rfake\x7f\u{9b}31m";
        let (shown, count) = neutralise(hostile);
        assert_eq!(shown, "ok^[]0;pwned^G^[[2J^Mfake^?<U+009B>31m");
        assert_eq!(count, 6);
        assert_eq!(neutralise("\0").0, "^@");
    }
}
