//! A Markdown table writer, padded so tables read well as plain text, for every Markdown file.

/// Column alignment in a Markdown table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

/// A bot name (or any text) as Markdown table cell text.
pub(crate) fn escape(name: &str) -> String {
    name.replace('|', "\\|")
}

/// A Markdown table padded to read well as plain text.
pub(crate) fn table(header: Vec<String>, align: &[Align], rows: Vec<Vec<String>>) -> String {
    let width = |i: usize| {
        rows.iter()
            .map(|r| r[i].chars().count())
            .chain([header[i].chars().count(), 3])
            .max()
            .unwrap_or(3)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    let line = |cells: &[String]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .zip(align)
            .map(|((c, &w), a)| match a {
                Align::Left => format!("{c:<w$}"),
                Align::Right => format!("{c:>w$}"),
            })
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut out = line(&header);
    let rules: Vec<String> = widths
        .iter()
        .zip(align)
        .map(|(&w, a)| match a {
            Align::Left => format!(":{}", "-".repeat(w - 1)),
            Align::Right => format!("{}:", "-".repeat(w - 1)),
        })
        .collect();
    out.push_str(&format!("| {} |\n", rules.join(" | ")));
    for r in &rows {
        out.push_str(&line(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_pad_to_the_widest_cell_and_at_least_three() {
        let text = table(
            vec!["a".into(), "long header".into()],
            &[Align::Left, Align::Right],
            vec![vec!["wide cell".into(), "1".into()]],
        );
        let expected = [
            "| a         | long header |",
            "| :-------- | ----------: |",
            "| wide cell |           1 |",
        ];
        assert_eq!(text.lines().collect::<Vec<_>>(), expected);
        assert_eq!(escape("a|b"), "a\\|b");
    }
}
