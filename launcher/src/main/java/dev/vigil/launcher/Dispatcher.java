package dev.vigil.launcher;

import dev.vigil.coordination.Event;
import dev.vigil.coordination.Ticket;
import dev.vigil.coordination.TicketId;
import dev.vigil.coordination.TicketState;
import dev.vigil.launcher.internal.Daemon;
import dev.vigil.supervisor.engine.Command;
import dev.vigil.supervisor.engine.Reply;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event threads of a {@link Vigil}: cursors over the store's event stream, each reading it
 * through the engine ({@link Command.Events}) from its own last id whenever the daemon says
 * something may have been written (a wake-up from its scheduling thread, never a timer).
 *
 * <ul>
 *   <li>Completions: one thread ({@code vigil-events}) completes the futures of tickets whose event
 *       says they finished or are HELD (SETTLED into a finished state or HELD, HELD, CANCELLED). Every
 *       move of a ticket into such a state writes one of these events in its own transaction, so the
 *       stream alone drives the completions.
 *   <li>Listeners: each subscription has a thread of its own ({@code vigil-events-N}) and its own
 *       cursor. The store keeps every event, so a slow listener only falls behind: it holds up neither
 *       the engine (which never waits for a listener, and only queues a wake-up), nor other listeners,
 *       nor completions; it reads one page at a time when it is ready.
 * </ul>
 *
 * <p>No listener or completion ever runs on the daemon's scheduling thread.
 */
final class Dispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
  /** Events read per command. */
  static final int PAGE = 500;
  /** The thread name of completions; a listener's thread is this name, a dash and a number. */
  static final String THREAD = "vigil-events";
  private static final AtomicInteger SUBSCRIPTIONS = new AtomicInteger();

  /**
   * The daemon's hook, pointed at the dispatcher once it exists (the daemon starts first): an engine
   * event or a reply to a command that may have written (from this JVM or from the CLI) wakes every
   * cursor. A read's reply wakes nothing, or the cursors' own reads would wake them again.
   */
  static final class Waker implements Daemon.Changes {
    private volatile Dispatcher to;

    void to(Dispatcher d) {
      this.to = d;
    }

    @Override
    public void engineEvent() {
      Dispatcher d = to;
      if (d != null) {
        d.wake();
      }
    }

    @Override
    public void replied(Reply reply) {
      Dispatcher d = to;
      if (d != null && mayHaveWritten(reply)) {
        d.wake();
      }
    }
  }

  /** Whether a command answered with {@code r} may have written an event: not a read, not a refusal. */
  static boolean mayHaveWritten(Reply r) {
    return !(r instanceof Reply.EventList || r instanceof Reply.TicketDetail || r instanceof Reply.TicketList
        || r instanceof Reply.RunList || r instanceof Reply.StatusReport || r instanceof Reply.Schedules
        || r instanceof Reply.Denied
        || r instanceof Reply.NotFound || r instanceof Reply.Invalid || r instanceof Reply.Busy);
  }

  private final Function<Command, Reply> call;
  private final Object lock = new Object();
  /** Guarded by {@code lock} (Guava's annotation is not on the launcher's classpath). */
  private final List<Listener> listeners = new ArrayList<>();
  /** Guarded by {@code lock} (Guava's annotation is not on the launcher's classpath). */
  private final Map<TicketId, List<CompletableFuture<Ticket>>> waiting = new HashMap<>();
  private final Completions completions;
  private volatile boolean running = true;

  Dispatcher(Function<Command, Reply> call, long head) {
    this.call = call;
    this.completions = new Completions(head);
  }

  void start() {
    completions.start();
  }

  /** Something may have been written; returns at once (called on the daemon's scheduling thread). */
  void wake() {
    completions.wake();
    List<Listener> these;
    synchronized (lock) {
      these = List.copyOf(listeners);
    }
    these.forEach(Cursor::wake);
  }

  /** Whether the calling thread is one of this dispatcher's (completions or a listener). */
  boolean onThisThread() {
    if (completions.onThisThread()) {
      return true;
    }
    synchronized (lock) {
      return listeners.stream().anyMatch(Cursor::onThisThread);
    }
  }

  Subscription listen(long afterId, Consumer<VigilEvent> consumer) {
    Listener l = new Listener(afterId, consumer);
    synchronized (lock) {
      if (!running) {
        throw new IllegalStateException("Vigil was closed");
      }
      listeners.add(l);
    }
    l.start();
    return l;
  }

  /** A future for {@code id}'s settlement; the caller then checks whether it has already settled. */
  CompletableFuture<Ticket> register(TicketId id) {
    CompletableFuture<Ticket> f = new CompletableFuture<>();
    synchronized (lock) {
      waiting.computeIfAbsent(id, k -> new ArrayList<>()).add(f);
    }
    return f;
  }

  /** Completes every waiter of {@code t} when it is finished or held. */
  void offer(Ticket t) {
    if (!settled(t.state())) {
      return;
    }
    List<CompletableFuture<Ticket>> fs;
    synchronized (lock) {
      fs = waiting.remove(t.id());
    }
    if (fs != null) {
      fs.forEach(f -> f.complete(t));
    }
  }

  void forget(TicketId id, CompletableFuture<Ticket> f) {
    synchronized (lock) {
      List<CompletableFuture<Ticket>> fs = waiting.get(id);
      if (fs != null) {
        fs.remove(f);
        if (fs.isEmpty()) {
          waiting.remove(id);
        }
      }
    }
  }

  static boolean settled(TicketState s) {
    return s.terminal() || s == TicketState.HELD;
  }

  /**
   * Delivers what is already written, then stops: completions first (the futures still pending then
   * fail), then each listener, which takes every event written so far at its own pace before its
   * thread ends (a listener that blocks holds this up).
   */
  void stop() {
    List<Listener> these;
    synchronized (lock) {
      running = false;
      these = List.copyOf(listeners);
      listeners.clear();
    }
    completions.finish();
    List<CompletableFuture<Ticket>> pending = new ArrayList<>();
    synchronized (lock) {
      waiting.values().forEach(pending::addAll);
      waiting.clear();
    }
    pending.forEach(f -> f.completeExceptionally(new IllegalStateException("Vigil was closed")));
    these.forEach(Cursor::finish);
  }

  /**
   * A reader of the stream from its last id on a thread of its own, woken by {@link #wake}. Once
   * {@link #finish} is called it reads what is written by then and ends.
   */
  private abstract class Cursor {
    private final BlockingQueue<Boolean> wake = new ArrayBlockingQueue<>(1);
    private final Thread thread;
    /** The last event handled; written only on this cursor's thread. */
    protected volatile long last;
    private volatile boolean finishing;

    Cursor(long afterId, String name) {
      this.last = afterId;
      this.thread = new Thread(this::loop, name);
      this.thread.setDaemon(true);
    }

    void start() {
      thread.start();
      wake();
    }

    final void wake() {
      wake.offer(Boolean.TRUE);
    }

    final boolean onThisThread() {
      return Thread.currentThread() == thread;
    }

    /** Reads what is written by now, then ends; waits for that unless called on this thread. */
    final void finish() {
      finishing = true;
      wake();
      if (!onThisThread() && thread.isAlive()) {
        try {
          thread.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }

    /** Whether to go on reading. */
    abstract boolean open();

    /** Handles one event, in id order, once; sets {@link #last}. */
    abstract void handle(Event e);

    private void loop() {
      while (open()) {
        try {
          wake.take();
        } catch (InterruptedException e) {
          return;
        }
        boolean lastPass = finishing; // read before the pass: it then reads everything written before finish()
        try {
          drain();
        } catch (UnavailableException e) {
          // the store is unavailable: read on at the next wake, which the recovered daemon's first event gives
          LOG.debug("events: {}", e.getMessage());
          if (lastPass) {
            return;
          }
          continue;
        } catch (IllegalStateException e) {
          LOG.debug("events: {}", e.getMessage()); // the daemon stopped
          return;
        }
        if (lastPass) {
          return;
        }
      }
    }

    private void drain() {
      while (open()) {
        Reply r = call.apply(new Command.Events(last, PAGE));
        if (!(r instanceof Reply.EventList list)) {
          throw new AssertionError(r);
        }
        for (Event e : list.events()) {
          if (!open()) {
            return;
          }
          handle(e);
        }
        if (list.events().size() < PAGE) {
          return;
        }
      }
    }
  }

  /** Completes the futures of tickets that finished or were held, from the events that say so. */
  private final class Completions extends Cursor {
    Completions(long head) {
      super(head, THREAD);
    }

    @Override
    boolean open() {
      return true;
    }

    @Override
    void handle(Event e) {
      last = e.id();
      boolean ends = e.ticket() != null && (e.kind() == Event.Kind.HELD || e.kind() == Event.Kind.CANCELLED
          || e.kind() == Event.Kind.SETTLED && settled(e.ticketState()));
      if (!ends) {
        return;
      }
      boolean someone;
      synchronized (lock) {
        someone = waiting.containsKey(e.ticket());
      }
      if (someone) {
        Reply r = call.apply(new Command.Show(e.ticket()));
        if (r instanceof Reply.TicketDetail d) {
          offer(settled(d.ticket().state()) ? d.ticket() : atEvent(d.ticket(), e));
        }
      }
    }
  }

  /** The ticket as the event left it, when it moved on since (released, retried by hand). */
  private static Ticket atEvent(Ticket now, Event e) {
    TicketState s = e.kind() == Event.Kind.HELD ? TicketState.HELD : e.ticketState();
    return now.withState(s, s == TicketState.HELD ? Optional.ofNullable(e.text()).orElse("") : null);
  }

  private final class Listener extends Cursor implements Subscription {
    private final Consumer<VigilEvent> consumer;
    private volatile boolean open = true;

    Listener(long afterId, Consumer<VigilEvent> consumer) {
      super(afterId, THREAD + "-" + SUBSCRIPTIONS.incrementAndGet());
      this.consumer = consumer;
    }

    @Override
    boolean open() {
      return open;
    }

    @Override
    void handle(Event e) {
      last = e.id(); // before the listener sees it, so that lastId() names what it has seen
      try {
        consumer.accept(VigilEvent.of(e));
      } catch (RuntimeException x) {
        LOG.warn("an event listener failed on event {} (it counts as delivered): {}", e.id(), x.toString());
      } catch (Error x) {
        close();
        LOG.error("an event listener failed on event {} with an error; its subscription ends", e.id(), x);
        if (x instanceof VirtualMachineError) {
          throw x;
        }
      }
    }

    @Override
    public long lastId() {
      return last;
    }

    @Override
    public void close() {
      open = false;
      synchronized (lock) {
        listeners.remove(this);
      }
      wake();
    }
  }
}
