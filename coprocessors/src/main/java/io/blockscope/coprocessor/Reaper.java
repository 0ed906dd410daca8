package io.blockscope.coprocessor;

import java.lang.ref.PhantomReference;
import java.lang.ref.ReferenceQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs an action once, when its object is closed or, failing that, once the object has become
 * unreachable: what {@code java.lang.ref.Cleaner} (JDK 9) does, for this jar, which runs on JDK 8
 * too. One daemon thread per class-loader copy of blockscope takes collected objects off a
 * reference queue; the registrations stay strongly reachable here until their action ran.
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

  static {
    Thread t = new Thread(Reaper::drain, "blockscope-scanner-cleaner");
    t.setDaemon(true);
    t.start();
  }

  /** Runs {@code action} when {@code object} is cleaned or after it became unreachable. */
  static Cleanable register(Object object, Runnable action) {
    Cleanable c = new Cleanable(object, action);
    LIVE.add(c);
    return c;
  }

  private static void drain() {
    while (true) {
      try {
        ((Cleanable) QUEUE.remove()).clean();
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException | Error e) {
        // an action that threw must not stop the others; the hooks' actions never throw
      }
    }
  }
}
