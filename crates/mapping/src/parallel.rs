//! Work spread over the machine's cores, for the CPU-bound steps between a provider's schema
//! answer and the package schema: converting it, mapping it and writing the package schema.
//! Each is a loop over independent members (resources, data sources, modules) whose results
//! are combined in order afterwards, so the result never depends on the number of threads.
//!
//! Two things decide how well such a loop uses the cores, and both were measured on AWS
//! 3.39.0 on a 2-vCPU machine: where the threads start (`Placement`), and the order the
//! members are taken in ([`map_with_weights`]).

use std::num::NonZero;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Below this many items per thread, threads cost more than they save.
const MIN_ITEMS_PER_THREAD: usize = 16;

/// More threads than this gain nothing on a schema and hold more memory at once.
const MAX_THREADS: usize = 8;

/// The stack of each helper thread: as much as the plugin's runtime threads have
/// (`tfp_depth::STACK_BYTES`, a test in the plugin checks), since the items may be messages
/// decoded here and nested as deeply as any message the plugin accepts. It is address space;
/// only what the work uses is touched.
pub const HELPER_STACK_BYTES: usize = 64 << 20;

/// `f` applied to every item, results in item order, spread over the cores as [`map_with`]
/// does (for the tests).
#[cfg(test)]
fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    map_with(items, || (), |(), item| f(item))
}

/// [`map_with_weights`] with one weight for every item (for the tests).
#[cfg(test)]
fn map_with<T, S, R>(
    items: &[T],
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    // One weight for every item: the stable sort leaves them in item order.
    map_with_weights(items, |_| 0, init, f)
}

/// `f` applied to every item, results in item order. The calling thread and up to
/// `available_parallelism - 1` scoped threads take items one at a time from a shared counter,
/// so a few large items do not leave a thread idle; each makes its own `state` (a cache, say)
/// with `init`. A panic in `f` is raised again on the calling thread; a thread that cannot be
/// started leaves its share to the others.
///
/// The items are taken heaviest first by `weight` (an estimate of the work each is; ties in
/// item order). Taken in their own order, the heaviest module of AWS 3.39.0 (`wafv2WebAcl`, a
/// third of the package schema's work) came among the last, and one thread worked on it alone
/// for 4 ms after the other had run out of items.
pub fn map_with_weights<T, S, R>(
    items: &[T],
    weight: impl Fn(&T) -> usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R>
where
    T: Sync,
    R: Send,
{
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_cached_key(|&i| std::cmp::Reverse(weight(&items[i])));
    let threads = cores()
        .min(items.len() / MIN_ITEMS_PER_THREAD)
        .min(MAX_THREADS);
    let next = AtomicUsize::new(0);
    let work = || {
        let mut state = init();
        let mut done = Vec::new();
        while let Some(&position) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
            done.push((position, f(&mut state, &items[position])));
        }
        done
    };
    let finished = if threads <= 1 {
        vec![work()]
    } else {
        with_helpers(threads - 1, &work)
    };
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    for (position, result) in finished.into_iter().flatten() {
        slots[position] = Some(result);
    }
    slots
        .into_iter()
        .map(|slot| slot.expect("every item is taken by exactly one thread"))
        .collect()
}

/// How many threads the process may run at once, asked of the system once: under cgroups
/// `available_parallelism` reads several files (30 to 80 µs here), and a cold Parameterize +
/// GetSchema runs three of these loops one after the other.
fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, NonZero::get))
}

/// What `work` returns on the calling thread and on up to `helpers` scoped threads, each
/// placed on a CPU of its own ([`Placement`]). A thread the system refuses to start is only a
/// helper less; a panic in one is raised again here.
fn with_helpers<D: Send>(helpers: usize, work: &(impl Fn() -> D + Sync)) -> Vec<D> {
    let mut placement = Placement::new();
    let release = placement.release();
    std::thread::scope(|scope| {
        let helpers: Vec<_> = (0..helpers)
            .map_while(|_| {
                placement.next_helper();
                let release = &release;
                let helper = move || {
                    release.apply();
                    work()
                };
                std::thread::Builder::new()
                    .stack_size(HELPER_STACK_BYTES)
                    .spawn_scoped(scope, helper)
                    .ok()
            })
            .collect();
        placement.settle();
        let mut finished = vec![work()];
        for helper in helpers {
            finished.push(
                helper
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        finished
    })
}

/// Where the threads of one loop run. Linux starts a new thread where the scheduler finds
/// room at that moment, which on a small virtual machine is often the CPU of the thread that
/// made it; there it waits, for milliseconds, until the scheduler moves one of the two to an
/// idle CPU. On a 2-vCPU machine, two new threads sharing 6 ms of work took 5.7 ms instead of
/// 3 (medians of 40), and in the package schema's loop a helper started up to 3.9 ms late.
/// So the making thread goes to a CPU of the helper's before it makes it (the helper inherits
/// that CPU as its only one), and to one of its own after the last; each helper, once
/// started, and the maker take back the affinity they had. That costs a few system calls and
/// 50 to 100 µs; where a call fails, the scheduler places the threads itself.
#[cfg(target_os = "linux")]
struct Placement {
    /// `None` when the CPUs cannot be known, or once the maker has settled.
    cpus: Option<Cpus>,
}

#[cfg(target_os = "linux")]
struct Cpus {
    /// The maker's affinity.
    allowed: rustix::thread::CpuSet,
    /// The allowed CPUs, one for each helper in turn, then one for the maker.
    turns: std::iter::Cycle<std::vec::IntoIter<usize>>,
}

#[cfg(target_os = "linux")]
impl Placement {
    fn new() -> Placement {
        use rustix::thread::{CpuSet, sched_getaffinity};
        let cpus = sched_getaffinity(None).ok().and_then(|allowed| {
            let cpus: Vec<usize> = (0..CpuSet::MAX_CPU)
                .filter(|&cpu| allowed.is_set(cpu))
                .collect();
            (cpus.len() > 1).then(|| Cpus {
                allowed,
                turns: cpus.into_iter().cycle(),
            })
        });
        Placement { cpus }
    }

    /// Moves the calling thread to the CPU the next helper is to start on.
    fn next_helper(&mut self) {
        if let Some(cpus) = &mut self.cpus
            && !only(cpus.next())
        {
            self.settle();
        }
    }

    /// What gives a helper, once started, the maker's affinity.
    fn release(&self) -> Release {
        Release(self.cpus.as_ref().map(|cpus| cpus.allowed))
    }

    /// Moves the calling thread, which made at least one helper, to the CPU after the
    /// helpers' (`available_parallelism` allows no more threads than CPUs, so no helper's),
    /// with its affinity back; places no more helpers.
    fn settle(&mut self) {
        if let Some(mut cpus) = self.cpus.take() {
            only(cpus.next());
            let _ = rustix::thread::sched_setaffinity(None, &cpus.allowed);
        }
    }
}

#[cfg(target_os = "linux")]
impl Cpus {
    fn next(&mut self) -> usize {
        self.turns.next().expect("a cycle over a non-empty list")
    }
}

/// The affinity a helper takes once started.
#[cfg(target_os = "linux")]
struct Release(Option<rustix::thread::CpuSet>);

#[cfg(target_os = "linux")]
impl Release {
    fn apply(&self) {
        if let Some(allowed) = &self.0 {
            let _ = rustix::thread::sched_setaffinity(None, allowed);
        }
    }
}

/// Lets the calling thread run on `cpu` only; the scheduler moves it there before this
/// returns. False if that was refused.
#[cfg(target_os = "linux")]
fn only(cpu: usize) -> bool {
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu);
    rustix::thread::sched_setaffinity(None, &set).is_ok()
}

/// Elsewhere the scheduler places the threads itself.
#[cfg(not(target_os = "linux"))]
struct Placement;

#[cfg(not(target_os = "linux"))]
struct Release;

#[cfg(not(target_os = "linux"))]
impl Placement {
    fn new() -> Placement {
        Placement
    }

    fn next_helper(&mut self) {}

    fn release(&self) -> Release {
        Release
    }

    fn settle(&mut self) {}
}

#[cfg(not(target_os = "linux"))]
impl Release {
    fn apply(&self) {}
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
        // Each item reports the state it was given, the thread that made that state, and the
        // thread it ran on.
        let used = map_with(
            &items,
            || {
                let id = made.fetch_add(1, Ordering::Relaxed);
                (id, std::thread::current().id())
            },
            |(id, maker), _| (*id, *maker, std::thread::current().id()),
        );
        let made = made.into_inner();
        assert!(
            (1..=MAX_THREADS).contains(&made),
            "{made} states for 1000 items"
        );
        assert_eq!(used.len(), items.len());
        let mut state_of_thread = std::collections::HashMap::new();
        for (id, maker, ran_on) in used {
            assert_eq!(
                maker, ran_on,
                "state {id} is used on the thread that made it"
            );
            let first = *state_of_thread.entry(ran_on).or_insert(id);
            assert_eq!(first, id, "one state per thread");
        }
    }

    #[test]
    fn each_thread_takes_the_heaviest_items_first_and_results_stay_in_item_order() {
        let items: Vec<usize> = (0..1000).collect();
        // Weights repeat, so that ties are taken in item order.
        let weight = |i: &usize| i % 100;
        let taken = std::sync::Mutex::new(Vec::new());
        let doubled = map_with_weights(
            &items,
            weight,
            || (),
            |(), &i| {
                let thread = std::thread::current().id();
                taken.lock().expect("no panic holds it").push((thread, i));
                i * 2
            },
        );
        assert_eq!(doubled, items.iter().map(|i| i * 2).collect::<Vec<_>>());
        let taken = taken.into_inner().expect("no panic held it");
        assert_eq!(taken.len(), items.len());
        let mut by_thread: std::collections::HashMap<_, Vec<usize>> = Default::default();
        for (thread, i) in taken {
            by_thread.entry(thread).or_default().push(i);
        }
        for order in by_thread.values() {
            for pair in order.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                assert!(
                    weight(&a) > weight(&b) || (weight(&a) == weight(&b) && a < b),
                    "{a} taken before {b}"
                );
            }
        }
    }

    /// The threads are placed by narrowing their affinity for a moment: every item is worked
    /// on with the caller's affinity, and the caller has it back afterwards.
    #[cfg(target_os = "linux")]
    #[test]
    fn every_item_is_worked_on_with_the_callers_affinity_which_it_keeps() {
        let before = rustix::thread::sched_getaffinity(None).expect("own affinity");
        let items: Vec<usize> = (0..1000).collect();
        let seen = map(&items, |_| {
            rustix::thread::sched_getaffinity(None).expect("own affinity")
        });
        assert!(seen.iter().all(|affinity| *affinity == before));
        let after = rustix::thread::sched_getaffinity(None).expect("own affinity");
        assert_eq!(after, before);
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
