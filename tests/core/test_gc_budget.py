"""The evaluation's garbage-collection setting is its own: the process gets its setting back."""

from __future__ import annotations

import gc
import threading

from sqltriage.core.pipeline.gc_budget import BATCH_THRESHOLD, batch_collections


def test_the_batch_setting_holds_inside_and_the_process_setting_returns() -> None:
    # A process that had not frozen its heap (a test of the app run earlier in this worker may have): the
    # frozen one is the next test's case.
    gc.unfreeze()
    before = gc.get_threshold()
    with batch_collections():
        assert gc.get_threshold() == BATCH_THRESHOLD
        assert gc.get_freeze_count() > 0  # what existed before the batch is left out of its scans
        with batch_collections():  # nested: still the batch setting
            assert gc.get_threshold() == BATCH_THRESHOLD
        assert gc.get_threshold() == BATCH_THRESHOLD
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_overlapping_blocks_in_threads_restore_the_process_setting() -> None:
    before = gc.get_threshold()
    entered, release = threading.Barrier(2), threading.Event()

    def batch() -> None:
        with batch_collections():
            entered.wait()
            release.wait()

    other = threading.Thread(target=batch)
    other.start()
    with batch_collections():
        entered.wait()
        release.set()  # the other thread leaves first, while this block still runs
        other.join()
        assert gc.get_threshold() == BATCH_THRESHOLD
    assert gc.get_threshold() == before


def test_the_batchs_cyclic_garbage_is_collected_when_it_ends() -> None:
    """A parse tree points to its parent: its garbage needs the collector, which must not wait for exit."""
    import weakref

    class Node:
        pass

    gc.collect()
    with batch_collections():
        node, child = Node(), Node()
        node.child, child.parent = child, node  # a cycle, as in a parse tree
        alive = weakref.ref(node)
        del node, child
        assert alive() is not None  # fewer collections inside the batch: still there
    assert alive() is None  # collected as the batch ended, the long-lived heap left unscanned


def test_a_heap_the_process_froze_stays_frozen_and_its_own_threshold_stays() -> None:
    """The app freezes its long-lived objects once its screen is up; an evaluation in it must not thaw them."""
    before = gc.get_threshold()
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with batch_collections():
            gc.set_threshold(700, 10, 1_000_000)  # the app takes over full passes meanwhile
        assert gc.get_freeze_count() >= frozen  # not thawed
        assert gc.get_threshold() == (700, 10, 1_000_000)  # the setting chosen meanwhile is kept
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)
