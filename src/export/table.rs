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
///
/// Written into one string, cell by cell: a cross-table of a thousand bots has a million
/// cells, and is written twice (to its file and to stdout).
pub(crate) fn table(header: Vec<String>, align: &[Align], rows: Vec<Vec<String>>) -> String {
    let length = |c: &String| {
        if c.is_ascii() {
            c.len()
        } else {
            c.chars().count()
        }
    };
    let mut widths: Vec<usize> = header.iter().map(|h| length(h).max(3)).collect();
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(length(c));
        }
    }
    let line_width: usize = widths.iter().map(|w| w + 3).sum::<usize>() + 2;
    let mut out = String::with_capacity(line_width * (rows.len() + 2));
    let pad = |out: &mut String, n: usize, fill: char| out.extend(std::iter::repeat_n(fill, n));
    let line = |out: &mut String, cells: &[String]| {
        out.push('|');
        for ((c, &w), a) in cells.iter().zip(&widths).zip(align) {
            out.push(' ');
            let gap = w - length(c);
            if *a == Align::Right {
                pad(out, gap, ' ');
            }
            out.push_str(c);
            if *a == Align::Left {
                pad(out, gap, ' ');
            }
            out.push_str(" |");
        }
        out.push('\n');
    };
    line(&mut out, &header);
    out.push('|');
    for (&w, a) in widths.iter().zip(align) {
        out.push(' ');
        if *a == Align::Left {
            out.push(':');
        }
        pad(&mut out, w - 1, '-');
        if *a == Align::Right {
            out.push(':');
        }
        out.push_str(" |");
    }
    out.push('\n');
    for r in &rows {
        line(&mut out, r);
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
