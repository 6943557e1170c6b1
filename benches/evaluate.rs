//! What scoring costs next to acting, per env: `step(gold)`, then the first `evaluate()` (the
//! gold runs once per episode for bash, once per task for Python; SQL's gold rows are cached
//! per task), then `evaluate()` again (try-again scores after every action: this is the cost
//! it pays each turn), then `submit`. Medians over the first tasks of the embedded fixtures.
//!
//! `cargo bench --bench evaluate`

use intercode::env::{EnvKind, EnvSpec};
use std::time::{Duration, Instant};

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let t = Instant::now();
    let out = f();
    (out, t.elapsed())
}

fn main() {
    const TASKS: usize = 8;
    const ROUNDS: usize = 3;
    println!(
        "{:<7} {:>10} {:>14} {:>14} {:>10} {:>12}",
        "env", "action ms", "1st eval ms", "next eval ms", "submit ms", "next/action"
    );
    for kind in EnvKind::ALL {
        let mut env = EnvSpec::new(kind).build().expect("env");
        let (mut action, mut first, mut again, mut submit) = (vec![], vec![], vec![], vec![]);
        for round in 0..ROUNDS {
            for i in 0..TASKS.min(env.task_count()) {
                env.reset(i).expect("reset");
                let gold = env.gold().expect("gold");
                let (_, a) = timed(|| env.step(&gold).expect("step"));
                let (r1, e1) = timed(|| env.evaluate().expect("evaluate"));
                let (r2, e2) = timed(|| env.evaluate().expect("evaluate"));
                assert_eq!(
                    r1.reward, r2.reward,
                    "{kind} task {i}: evaluate is not stable"
                );
                let (_, s) = timed(|| env.submit().expect("submit"));
                // The first round warms pools and per-task caches alike for every env.
                if round > 0 {
                    action.push(a);
                    first.push(e1);
                    again.push(e2);
                    submit.push(s);
                }
            }
        }
        let (a, e1, e2, s) = (median(action), median(first), median(again), median(submit));
        println!(
            "{:<7} {:>10.3} {:>14.3} {:>14.3} {:>10.3} {:>11.2}x",
            kind.name(),
            ms(a),
            ms(e1),
            ms(e2),
            ms(s),
            e2.as_secs_f64() / a.as_secs_f64()
        );
    }
}
