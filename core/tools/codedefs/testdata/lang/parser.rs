//! A tiny INI parser.
use std::collections::HashMap;
use std::fmt;

pub type Section = HashMap<String, String>;

#[derive(Debug, Default)]
pub struct Ini {
    sections: HashMap<String, Section>,
}

#[derive(Debug)]
pub enum ParseError {
    MissingBracket(usize),
    NoEquals(usize),
}

pub trait Lookup {
    fn lookup(&self, section: &str, key: &str) -> Option<&str>;
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::MissingBracket(l) => write!(f, "line {l}: missing ]"),
            ParseError::NoEquals(l) => write!(f, "line {l}: expected key = value"),
        }
    }
}

impl Ini {
    pub fn parse(text: &str) -> Result<Self, ParseError> {
        let mut ini = Ini::default();
        let mut current = String::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.starts_with('[') {
                let end = line.find(']').ok_or(ParseError::MissingBracket(n + 1))?;
                current = line[1..end].to_string();
            } else if !line.is_empty() {
                let (k, v) = line.split_once('=').ok_or(ParseError::NoEquals(n + 1))?;
                ini.sections.entry(current.clone()).or_default().insert(k.trim().into(), v.trim().into());
            }
        }
        Ok(ini)
    }
}

impl Lookup for Ini {
    fn lookup(&self, section: &str, key: &str) -> Option<&str> {
        self.sections.get(section)?.get(key).map(String::as_str)
    }
}

macro_rules! ini {
    ($text:expr) => {
        Ini::parse($text).expect("valid ini")
    };
}

mod tests {
    #[test]
    fn parses_sections() {
        let ini = ini!("[a]\nx = 1");
        assert_eq!(ini.lookup("a", "x"), Some("1"));
    }
}
