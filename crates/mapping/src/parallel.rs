//! Work spread over the machine's cores, for the two CPU-bound steps between a provider's
//! schema answer and the package schema: mapping it and writing the package schema. Both are
//! a loop over independent members (resources, data sources, modules) whose results are
//! combined in order afterwards, so the result never depends on the number of threads.

use std::num::NonZero;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Below this many items per thread, threads cost more than they save.
const MIN_ITEMS_PER_THREAD: usize = 16;

/// More threads than this gain nothing on a schema and hold more memory at once.
const MAX_THREADS: usize = 8;

/// `f` applied to every item, results in item order, spread over the cores as [`map_with`]
/// does.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_with(items, || (), |(), item| f(item))
}

/// `f` applied to every item, results in item order. The calling thread and up to
/// `available_parallelism - 1` scoped threads take items one at a time from a shared counter,
/// so a few large items do not leave a thread idle; each makes its own `state` (a cache, say)
/// with `init`. A panic in `f` is raised again on the calling thread; a thread that cannot be
/// started leaves its share to the others.
pub fn map_with<T, S, R>(
    items: &[T],
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let threads = std::thread::available_parallelism()
        .map_or(1, NonZero::get)
        .min(items.len() / MIN_ITEMS_PER_THREAD)
        .min(MAX_THREADS);
    if threads <= 1 {
        let mut state = init();
        return items.iter().map(|item| f(&mut state, item)).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut state = init();
        let mut done = Vec::new();
        loop {
            let position = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(position) else {
                break;
            };
            done.push((position, f(&mut state, item)));
        }
        done
    };
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        // A thread the system refuses to start is only a helper less: the others take its items.
        let helpers: Vec<_> = (1..threads)
            .map_while(|_| std::thread::Builder::new().spawn_scoped(scope, work).ok())
            .collect();
        let mut finished = vec![work()];
        for helper in helpers {
            finished.push(
                helper
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        for (position, result) in finished.into_iter().flatten() {
            slots[position] = Some(result);
        }
    });
    slots
        .into_iter()
        .map(|slot| slot.expect("every item is taken by exactly one thread"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_item_order_with_or_without_threads() {
        for count in [0, 1, MIN_ITEMS_PER_THREAD, 1000] {
            let items: Vec<usize> = (0..count).collect();
            let squares = map(&items, |i| i * i);
            assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>());
        }
    }

    #[test]
    fn each_thread_makes_its_state_once() {
        let items: Vec<usize> = (0..1000).collect();
        let made = AtomicUsize::new(0);
        let states = map_with(
            &items,
            || made.fetch_add(1, Ordering::Relaxed),
            |state, _| *state,
        );
        let made = made.into_inner();
        assert!(
            (1..=MAX_THREADS).contains(&made),
            "{made} states for 1000 items"
        );
        let mut distinct = states.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() <= made);
        assert_eq!(states.len(), items.len());
    }

    #[test]
    #[should_panic(expected = "item 500")]
    fn a_panic_in_a_thread_is_raised_on_the_caller() {
        let items: Vec<usize> = (0..1000).collect();
        map(&items, |&i| {
            assert!(i != 500, "item {i}");
            i
        });
    }
}
