//! Unit tests of the hub: connections claimed together, absent entrants.

use super::*;
use crate::player::remote::Door;
use crate::serve::entrants::table;

fn hub(grace: Duration, when: usize) -> Arc<Hub> {
    let text = format!("{}{}", table("x", "tx"), table("y", "ty"));
    let start = Start { when, at: None };
    let entrants = Entrants::parse(&text).unwrap();
    Hub::new(
        GameKind::Othello,
        entrants,
        Duration::from_secs(1),
        grace,
        start,
        Rooms::default(),
    )
}

#[tokio::test]
async fn two_games_of_the_same_two_entrants_with_one_connection_each_take_turns() {
    let hub = hub(Duration::from_secs(5), 2);
    let mut events = hub.subscribe();
    let _x = hub.hello(0).unwrap();
    let _y = hub.hello(1).unwrap();
    hub.begin(vec![2, 2]).await;
    // Game 1: x first, y second; game 2: y first, x second. Claimed seat by seat, each
    // game could hold one connection the other waits for.
    let g1 = [hub.door(1, 0, Some([0, 1])), hub.door(1, 1, Some([0, 1]))];
    let g2 = [hub.door(2, 1, Some([1, 0])), hub.door(2, 0, Some([1, 0]))];
    let first = tokio::time::timeout(Duration::from_secs(2), async {
        tokio::select! {
            l = g1[0].connect(false) => (1, l),
            l = g2[0].connect(false) => (2, l),
        }
    });
    let (game, link) = first.await.expect("one game gets both connections");
    assert!(link.is_ok());
    let (done, other) = if game == 1 { (&g1, &g2) } else { (&g2, &g1) };
    assert!(done[1].connect(false).await.is_ok());
    done[0].done();
    done[1].done();
    // The entrants come back for the other game.
    let _x = hub.hello(0).unwrap();
    let _y = hub.hello(1).unwrap();
    let both = tokio::time::timeout(Duration::from_secs(2), async {
        (other[0].connect(false).await, other[1].connect(false).await)
    });
    let (a, b) = both.await.expect("the other game starts");
    assert!(a.is_ok() && b.is_ok());
    let first = events.try_recv();
    assert!(matches!(first, Ok(HubEvent::Waiting { entrant: 0 })));
}

#[tokio::test]
async fn an_entrant_who_never_connects_loses_by_timeout_after_the_grace() {
    let hub = hub(Duration::from_millis(100), 1);
    let _x = hub.hello(0).unwrap();
    hub.begin(vec![1, 1]).await;
    let game = [hub.door(1, 0, Some([0, 1])), hub.door(1, 1, Some([0, 1]))];
    let x = tokio::time::timeout(Duration::from_secs(2), game[0].connect(false)).await;
    assert!(x.unwrap().is_ok());
    assert_eq!(game[1].connect(false).await.err(), Some(Failure::Timeout));
}
