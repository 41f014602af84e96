//! A date pattern fitted to the field widths a program asked for, as ICU's pattern generator
//! fits CLDR's closest pattern (V8's `Intl.DateTimeFormat` does this; ICU4X's semantic
//! skeletons choose widths by one length instead).
//!
//! ICU4X gives the locale's pattern for the fields at a length ([`closest`] picks which, where
//! CLDR 48's tables have none: the medium one for a short month name where it has one, the long
//! one for a long name, the short one for numbers); [`fit`] then sets each field's width as ICU's generator does: the year and
//! a month name take the asked width (de's `d. MMMM y` becomes `d. MMM y`), a `2-digit` day,
//! month or hour gets its zero. A number is never shortened (en-GB's `dd/MM/y` stays, as in
//! V8) except where ICU4X's short pattern is CLDR's abbreviated one rather than its `yMd`: a
//! two-digit year's pattern (de's `dd.MM.yy` becomes `d.M.y`) and Japanese (`y/MM/dd`, whose
//! `yMd` is `y/M/d`), or where a `2-digit` month or day was asked (`{ month: "numeric", day:
//! "2-digit" }` is de's `dd.M.`). A locale whose pattern writes the month as a number (ja's
//! `y年M月d日`) keeps it a number, as CLDR means. [`map_fields`] walks a pattern's fields.

use icu_datetime::options::Length;

/// The requested widths of the fields a pattern may hold (`None`: leave the pattern's).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Widths {
    /// `numeric` (1) or `2-digit` (2).
    pub(crate) year: Option<usize>,
    /// 1, 2 (numbers) or 3, 4, 5 (short, long, narrow names).
    pub(crate) month: Option<usize>,
    /// 1 or 2.
    pub(crate) day: Option<usize>,
    /// 3, 4 or 5 (short, long, narrow).
    pub(crate) weekday: Option<usize>,
    /// 2 for a `2-digit` hour.
    pub(crate) hour: Option<usize>,
    /// Whether an era is shown.
    pub(crate) era: bool,
    /// Whether minutes were asked `2-digit`, and seconds too where asked.
    pub(crate) two_digit_time: bool,
}

impl Widths {
    /// Whether these are a month and day of numbers with a weekday (and a year or not):
    /// CLDR's `yMEd` or `MEd`.
    pub(crate) fn numeric_with_weekday(&self) -> bool {
        self.month.is_some_and(|w| w < 3) && self.day.is_some() && self.weekday.is_some()
    }

    /// Whether these are a year, month and day of numbers (and no weekday): CLDR's `yMd`.
    pub(crate) fn numeric_ymd(&self) -> bool {
        self.year.is_some()
            && self.month.is_some_and(|w| w < 3)
            && self.day.is_some()
            && self.weekday.is_none()
    }
}

/// The width an option's value asks for.
pub(crate) fn width(value: &str) -> usize {
    match value {
        "2-digit" => 2,
        "short" => 3,
        "long" => 4,
        "narrow" => 5,
        _ => 1,
    }
}

/// The length of the locale's pattern to fit, and that pattern: `at(length)` is its pattern at
/// a length.
pub(crate) fn closest<E>(
    widths: Widths,
    at: impl Fn(Option<Length>) -> Result<String, E>,
) -> Result<(Length, String), E> {
    let length = match widths.month {
        Some(3 | 5) => {
            let medium = at(Some(Length::Medium))?;
            if month_is_text(&medium) {
                return Ok((Length::Medium, medium));
            }
            Length::Long
        }
        Some(4) => Length::Long,
        _ => Length::Short,
    };
    Ok((length, at(Some(length))?))
}

/// Whether a pattern writes the month as a name.
fn month_is_text(pattern: &str) -> bool {
    pattern.contains("MMM") || pattern.contains("LLL")
}

/// `pattern` (CLDR pattern syntax) with each run of one field letter outside quotes replaced by
/// what `field(letter, run length, output so far)` gives, or kept where it gives `None`.
pub(crate) fn map_fields(
    pattern: &str,
    mut field: impl FnMut(char, usize, &str) -> Option<String>,
) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::with_capacity(pattern.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // A quoted literal (or '' for a quote), copied as it is.
            let mut k = i + 1;
            while k < chars.len() && chars[k] != '\'' {
                k += 1;
            }
            out.extend(&chars[i..(k + 1).min(chars.len())]);
            i = k + 1;
            continue;
        }
        let mut run = 1;
        while i + run < chars.len() && chars[i + run] == c {
            run += 1;
        }
        match c
            .is_ascii_alphabetic()
            .then(|| field(c, run, &out))
            .flatten()
        {
            Some(text) => out.push_str(&text),
            None => out.extend(&chars[i..i + run]),
        }
        i += run;
    }
    out
}

/// `pattern` (CLDR pattern syntax) with its fields set to `widths`, for a locale of `language`.
pub(crate) fn fit(pattern: &str, widths: Widths, language: &str) -> String {
    // A `2-digit` month or day sets the date's numbers: the others asked `numeric` lose a
    // zero the pattern gives them (fr's `dd/MM/y` for a 2-digit month is `d/MM/y`, as in V8).
    let two_digit = widths.month == Some(2) || widths.day == Some(2);
    let shorten =
        language == "ja" || two_digit || (pattern.contains("yy") && !pattern.contains("yyy"));
    // Japanese and Korean write an abbreviated weekday after a day in parentheses (CLDR's
    // `yMMMEd`: ja `y年M月d日(E)`, ko `y년 MMM d일 (E)`), a full one without, and so does
    // Korean's long month with a year (`y년 MMMM d일 E`, as V8 prints it).
    let korean_long = language == "ko" && widths.year.is_some() && widths.month == Some(4);
    map_fields(pattern, |c, run, before| {
        // A number's width: widened to 2-digit, shortened only where `shorten` says.
        let number = |asked: Option<usize>| asked.filter(|w| *w > run || shorten);
        let fitted = match c {
            'y' => widths.year,
            'M' | 'L' if run >= 3 => widths.month.filter(|w| *w >= 3),
            'M' | 'L' => number(widths.month.filter(|w| *w < 3)),
            'd' => number(widths.day),
            'E' => widths.weekday,
            'c' | 'e' if run >= 3 => widths.weekday,
            'h' | 'H' | 'k' | 'K' => widths.hour.filter(|w| *w > run),
            _ => None,
        };
        let width = fitted.unwrap_or(run);
        let field = c.to_string().repeat(width);
        let bracket = matches!(language, "ja" | "ko")
            && !korean_long
            && matches!(c, 'E' | 'c' | 'e')
            && run == 4
            && width != 4
            && before.contains('d')
            && !before.ends_with('(');
        Some(if bracket { format!("({field})") } else { field })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_month_name_takes_the_asked_width_and_numbers_lose_zeros_only_from_abbreviated_patterns() {
        let short = Widths {
            year: Some(1),
            month: Some(3),
            day: Some(1),
            ..Widths::default()
        };
        assert_eq!(fit("d. MMMM y", short, "de"), "d. MMM y");
        assert_eq!(fit("y年M月d日", short, "ja"), "y年M月d日");
        let numeric = Widths {
            month: Some(1),
            ..short
        };
        assert_eq!(fit("dd.MM.yy", numeric, "de"), "d.M.y");
        assert_eq!(fit("dd/MM/y", numeric, "en"), "dd/MM/y");
        assert_eq!(fit("y/MM/dd", numeric, "ja"), "y/M/d");
        assert_eq!(fit("d 'de' MMMM 'de' y", short, "es"), "d 'de' MMM 'de' y");
        let two = Widths {
            hour: Some(2),
            ..short
        };
        assert_eq!(fit("h:mm a", two, "en"), "hh:mm a");
    }

    #[test]
    fn an_abbreviated_weekday_after_a_day_is_bracketed_in_japanese_and_korean() {
        let asked = |weekday| Widths {
            year: Some(1),
            month: Some(4),
            day: Some(1),
            weekday: Some(weekday),
            ..Widths::default()
        };
        assert_eq!(fit("y年M月d日EEEE", asked(3), "ja"), "y年M月d日(EEE)");
        assert_eq!(fit("y年M月d日EEEE", asked(4), "ja"), "y年M月d日EEEE");
        assert_eq!(fit("y년 MMMM d일 EEEE", asked(3), "ko"), "y년 MMMM d일 EEE");
        let month_day = Widths {
            year: None,
            ..asked(3)
        };
        assert_eq!(fit("MMMM d일 EEEE", month_day, "ko"), "MMMM d일 (EEE)");
        assert_eq!(fit("(EEEE) a h:mm", asked(3), "ko"), "(EEE) a h:mm");
        assert_eq!(fit("EEEE, d MMMM y", asked(3), "en"), "EEE, d MMMM y");
    }

    #[test]
    fn a_two_digit_month_or_day_pads_itself_and_no_other_number() {
        let asked = |year, month, day| Widths {
            year,
            month: Some(month),
            day: Some(day),
            ..Widths::default()
        };
        assert_eq!(fit("dd/MM/y", asked(Some(1), 2, 1), "fr"), "d/MM/y");
        assert_eq!(fit("dd.MM.", asked(None, 1, 2), "de"), "dd.M.");
        assert_eq!(fit("M/d", asked(None, 1, 2), "en"), "M/dd");
        // All numeric: the locale's own zeros stay.
        assert_eq!(fit("dd/MM/y", asked(Some(1), 1, 1), "fr"), "dd/MM/y");
    }

    #[test]
    fn a_short_month_name_comes_from_the_medium_pattern_when_it_has_one() {
        let short = Widths {
            month: Some(3),
            ..Widths::default()
        };
        let es = |l: Option<Length>| -> Result<String, ()> {
            Ok(match l {
                Some(Length::Medium) => "d MMM y",
                _ => "d 'de' MMMM 'de' y",
            }
            .into())
        };
        assert_eq!(closest(short, es), Ok((Length::Medium, "d MMM y".into())));
        let de = |l: Option<Length>| -> Result<String, ()> {
            Ok(match l {
                Some(Length::Medium) => "dd.MM.y",
                _ => "d. MMMM y",
            }
            .into())
        };
        assert_eq!(closest(short, de), Ok((Length::Long, "d. MMMM y".into())));
    }
}
