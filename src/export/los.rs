//! `los.csv`: the likelihood-of-superiority matrix of a ratings fit.

use anyhow::Result;

use super::{ExportContext, Exporter};
use crate::standings::ratings::Ratings;

/// Writes `los.csv`.
pub struct LosCsv;

impl Exporter for LosCsv {
    fn file_name(&self) -> &str {
        "los.csv"
    }

    fn render(&self, ctx: &ExportContext<'_>) -> Result<String> {
        los_csv(ctx.ratings)
    }
}

/// `los.csv`: a header `bot,<bot1>,...`, then one row per bot with its LOS against each
/// column bot to three decimals, empty on the diagonal and where unknown.
pub fn los_csv(r: &Ratings) -> Result<String> {
    let mut w = ::csv::Writer::from_writer(Vec::new());
    let mut header = vec!["bot".to_string()];
    header.extend(r.bots.iter().map(|b| b.bot.clone()));
    w.write_record(&header)?;
    // A thousand bots make a million cells: each is written in place, not as a `String`.
    let mut cell = String::new();
    for (bot, row) in r.bots.iter().zip(&r.los) {
        w.write_field(&bot.bot)?;
        for p in row {
            cell.clear();
            if let Some(p) = p {
                three_decimals(&mut cell, *p);
            }
            w.write_field(&cell)?;
        }
        w.write_record(None::<&[u8]>)?;
    }
    super::csv::finish(w)
}

/// Appends `p` as `format!("{p:.3}")` would, for a probability: by integer arithmetic unless
/// `p`'s thousandths are within a hair of a tie, where the exact decimal expansion decides.
fn three_decimals(out: &mut String, p: f64) {
    use std::fmt::Write;
    let scaled = p * 1000.0;
    // `scaled` is within an ulp (1.2e-13) of the exact product, so outside 1e-9 of a tie its
    // rounding is the exact value's.
    if (0.0..=1.0).contains(&p) && ((scaled - scaled.floor()) - 0.5).abs() > 1e-9 {
        let k = scaled.round() as u32;
        let digit = |d: u32| char::from(b'0' + (d % 10) as u8);
        out.extend([
            digit(k / 1000),
            '.',
            digit(k / 100),
            digit(k / 10),
            digit(k),
        ]);
    } else {
        let _ = write!(out, "{p:.3}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameKind;
    use crate::results::games::{GameRecord, GameResult, GameTable};
    use crate::standings::ratings::{fit, RatingOptions};

    fn morra(a: &str, b: &str, result: GameResult, n: usize) -> Vec<GameRecord> {
        vec![GameRecord::for_test(GameKind::Morra, a, b, result); n]
    }

    fn fitted(games: &[GameRecord]) -> Ratings {
        fit(&GameTable::from_records(games), &RatingOptions::default()).unwrap()
    }

    #[test]
    fn los_is_written_with_three_decimals_and_quoted_names() {
        let (a, b) = ("Quinn, and Valor", "Historian");
        let mut games = morra(a, b, GameResult::A, 5);
        games.extend(morra(a, b, GameResult::Draw, 1));
        games.extend(morra(a, b, GameResult::B, 3));
        games.extend(morra(b, "loser", GameResult::A, 1));
        let r = fitted(&games);
        let p = r.los[1][0].unwrap();
        let (h, q) = (r.los[0][2].unwrap(), r.los[1][2].unwrap());
        let expected = format!(
            "bot,Historian,\"Quinn, and Valor\",loser\n\
             Historian,,{:.3},{h:.3}\n\
             \"Quinn, and Valor\",{p:.3},,{q:.3}\n\
             loser,{:.3},{:.3},\n",
            1.0 - p,
            1.0 - h,
            1.0 - q
        );
        assert_eq!(los_csv(&r).unwrap(), expected);
        assert!(p > 0.5 && p < 1.0, "{p}");
    }

    #[test]
    fn three_decimals_are_those_of_the_formatter() {
        let mut rng = crate::rng::Rng::new(5);
        let ties = (0..=2000).map(|k| (k as f64 + 0.5) / 2000.0);
        let near = (0..=1000).flat_map(|k| {
            let x = (k as f64 + 0.5) / 1000.0;
            [
                x,
                f64::from_bits(x.to_bits() + 1),
                f64::from_bits(x.to_bits() - 1),
            ]
        });
        let random = (0..100_000).map(|_| rng.next_u64() as f64 / u64::MAX as f64);
        let ends = [0.0, 1.0, 1e-300, 0.9995, 0.0005, 1.0 - f64::EPSILON];
        for p in ties.chain(near).chain(random).chain(ends) {
            let mut cell = String::new();
            three_decimals(&mut cell, p);
            assert_eq!(cell, format!("{p:.3}"), "{p:e}");
        }
    }

    #[test]
    fn no_games_give_a_header_alone() {
        assert_eq!(los_csv(&fitted(&[])).unwrap(), "bot\n");
    }
}
