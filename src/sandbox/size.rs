//! Byte counts for people: printing `512 MiB` and parsing `512MiB`, `64M`, `1G`.

/// A byte count for people: `512 MiB`.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes;
    let mut unit = 0;
    while unit < 3 && value >= 1024 && value.is_multiple_of(1024) {
        value /= 1024;
        unit += 1;
    }
    format!("{value} {}", UNITS[unit])
}

/// Parses a size such as `512MiB`, `64M`, `1G` or `1000` (bytes).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let n: u64 = number.parse().map_err(|_| {
        format!("`{text}` is not a size (say `512MiB`, `64M` or a number of bytes)")
    })?;
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("`{text}` has an unknown unit (use K, M or G)")),
    };
    n.checked_mul(scale)
        .ok_or_else(|| format!("`{text}` is too large"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_size("512MiB"), Ok(512 << 20));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("1000"), Ok(1000));
        assert!(parse_size("lots")
            .unwrap_err()
            .contains("`lots` is not a size"));
        assert!(parse_size("5T").unwrap_err().contains("unknown unit"));
        assert_eq!(size(512 << 20), "512 MiB");
        assert_eq!(size(1000), "1000 B");
    }
}
