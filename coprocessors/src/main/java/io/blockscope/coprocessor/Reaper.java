package io.blockscope.coprocessor;

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs an action once, when its object is closed or, failing that, once the object has become
 * unreachable: what {@code java.lang.ref.Cleaner} (JDK 9) does, for this jar, which runs on JDK 8
 * too. A daemon thread per class-loader copy of blockscope takes collected objects off a reference
 * queue; the registrations stay strongly reachable here until their action ran. The thread ends
 * when no registration has been waiting for {@link #idleMillis} and starts again with the next one,
 * so that a copy no longer used (a per-table jar replaced by another) is not held in memory by a
 * thread of its own.
 */
final class Reaper {
  private Reaper() {}

  /** A registration: {@link #clean} runs its action at most once. */
  static final class Cleanable extends PhantomReference<Object> {
    private final Runnable action;
    private final AtomicBoolean done = new AtomicBoolean();

    private Cleanable(Object referent, Runnable action) {
      super(referent, QUEUE);
      this.action = action;
    }

    /** Runs the action unless it ran already; the action must not throw. */
    void clean() {
      if (done.compareAndSet(false, true)) {
        LIVE.remove(this);
        action.run();
      }
    }
  }

  private static final ReferenceQueue<Object> QUEUE = new ReferenceQueue<>();
  private static final Set<Cleanable> LIVE = ConcurrentHashMap.newKeySet();

  /** How long the thread waits with nothing registered before it ends. */
  static volatile long idleMillis = 60_000;

  private static final Object LOCK = new Object();

  /** The thread draining the queue; null while none runs. Guarded by {@link #LOCK}. */
  private static Thread drainer;

  /** Runs {@code action} when {@code object} is cleaned or after it became unreachable. */
  static Cleanable register(Object object, Runnable action) {
    Cleanable c = new Cleanable(object, action);
    LIVE.add(c);
    synchronized (LOCK) {
      if (drainer == null) {
        Thread t = new Thread(Reaper::drain, "blockscope-scanner-cleaner");
        t.setDaemon(true);
        t.setContextClassLoader(null); // holds no class loader but its own code's
        drainer = t;
        t.start();
      }
    }
    return c;
  }

  /** Registrations whose action has not run yet. */
  static int waiting() {
    return LIVE.size();
  }

  /** Whether the thread runs now. */
  static boolean draining() {
    synchronized (LOCK) {
      return drainer != null;
    }
  }

  private static void drain() {
    long lastWork = System.nanoTime();
    while (true) {
      try {
        // a second at most per wait, so that a shorter idleMillis holds from the next second
        Object collected = QUEUE.remove(Math.max(1, Math.min(idleMillis, 1_000)));
        if (collected != null) {
          ((Cleanable) collected).clean();
          lastWork = System.nanoTime();
          continue;
        }
        if (System.nanoTime() - lastWork < idleMillis * 1_000_000) {
          continue;
        }
        synchronized (LOCK) {
          if (LIVE.isEmpty()) {
            drainer = null; // the next registration starts another
            return;
          }
        }
      } catch (InterruptedException e) {
        synchronized (LOCK) {
          drainer = null;
        }
        return;
      } catch (RuntimeException | Error e) {
        // an action that threw must not stop the others; the hooks' actions never throw
      }
    }
  }
}
