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
    for (bot, row) in r.bots.iter().zip(&r.los) {
        let mut record = vec![bot.bot.clone()];
        record.extend(
            row.iter()
                .map(|p| p.map(|p| format!("{p:.3}")).unwrap_or_default()),
        );
        w.write_record(&record)?;
    }
    super::csv::finish(w)
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
    fn no_games_give_a_header_alone() {
        assert_eq!(los_csv(&fitted(&[])).unwrap(), "bot\n");
    }
}
