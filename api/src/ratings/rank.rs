//! The ranks (段位) shown beside a rating: bands of the rating, in one table.
//!
//! 新手 below 1000, then nine 级 counting down (9级 at 1000 … 1级 at 1800) and nine 段 counting
//! up (1段 at 1900 … 9段 at 2700 and above), each band 100 points wide. A new player (1500)
//! starts at 4级, mid-way up the 级; the 段 begin where a player beats a 1500 player about
//! ten games in eleven (the expected score 400 points apart), as 段 begin at strong amateurs.

/// One band: its name and the least rating in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rank {
    pub name: &'static str,
    pub min: i32,
}

const fn band(name: &'static str, min: i32) -> Rank {
    Rank { name, min }
}

impl Rank {
    /// Which kind of rank: "dan" (段), "kyu" (级) or "novice" (新手).
    pub fn tier(&self) -> &'static str {
        if self.name.ends_with('段') {
            "dan"
        } else if self.name.ends_with('级') {
            "kyu"
        } else {
            "novice"
        }
    }
}

/// Every rank from the lowest up; each runs from its `min` to the next one's.
pub const RANKS: [Rank; 19] = [
    band("新手", i32::MIN),
    band("9级", 1000),
    band("8级", 1100),
    band("7级", 1200),
    band("6级", 1300),
    band("5级", 1400),
    band("4级", 1500),
    band("3级", 1600),
    band("2级", 1700),
    band("1级", 1800),
    band("1段", 1900),
    band("2段", 2000),
    band("3段", 2100),
    band("4段", 2200),
    band("5段", 2300),
    band("6段", 2400),
    band("7段", 2500),
    band("8段", 2600),
    band("9段", 2700),
];

/// The rank of a rating, taken as shown (rounded to a whole point), so the rank never
/// disagrees with the figure beside it.
pub fn rank(rating: f64) -> &'static Rank {
    let points = rating.round() as i32;
    RANKS
        .iter()
        .rev()
        .find(|r| points >= r.min)
        .unwrap_or(&RANKS[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bands rise strictly, start from nothing, and meet without gaps.
    #[test]
    fn bands_rise() {
        assert_eq!(RANKS[0].min, i32::MIN);
        assert!(RANKS.windows(2).all(|w| w[0].min < w[1].min));
        assert_eq!(RANKS.len(), 1 + 9 + 9);
    }

    /// Ratings land in the band their shown figure is in.
    #[test]
    fn ratings_to_ranks() {
        assert_eq!(rank(0.0).name, "新手");
        assert_eq!(rank(999.4).name, "新手");
        assert_eq!(rank(999.5).name, "9级");
        assert_eq!(rank(1500.0).name, "4级");
        assert_eq!(rank(1899.0).name, "1级");
        assert_eq!(rank(1900.0).name, "1段");
        assert_eq!(rank(3200.0).name, "9段");
        assert_eq!(rank(-50.0).name, "新手");
    }
}
