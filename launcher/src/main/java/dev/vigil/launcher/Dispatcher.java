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
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one event thread of a {@link Vigil}: reads the store's event stream through the engine
 * ({@link Command.Events}) whenever the daemon says something may have been written (a wake-up from
 * its scheduling thread, never a timer), delivers each event to every listener whose last id is
 * below it, in id order, once, and completes the futures of tickets that settled or were held.
 *
 * <p>Listeners and completions run on this thread, never on the daemon's scheduling thread.
 */
final class Dispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);
  /** Events read per command. */
  static final int PAGE = 500;

  /**
   * The daemon's hook, pointed at the dispatcher once it exists (the daemon starts first). A command's
   * reply that finished a ticket (a cancel, which writes no event; a retry that cancelled a held
   * original), from this JVM or from the CLI, is handed to the event thread for its waiters.
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
      if (d == null) {
        return;
      }
      if (reply instanceof Reply.TicketChanged c && settled(c.ticket().state())) {
        d.finishedByCommand.add(c.ticket());
      } else if (reply instanceof Reply.Retried r && settled(r.original().state())) {
        d.finishedByCommand.add(r.original());
      }
      d.wake();
    }
  }

  /** Tickets a command finished, for their waiters, handed from the scheduling thread. */
  private final java.util.Queue<Ticket> finishedByCommand = new java.util.concurrent.ConcurrentLinkedQueue<>();

  private final Function<Command, Reply> call;
  private final BlockingQueue<Boolean> wake = new ArrayBlockingQueue<>(1);
  private final Object lock = new Object();
  /** Guarded by {@code lock} (Guava's annotation is not on the launcher's classpath). */
  private final List<Listener> listeners = new ArrayList<>();
  /** Guarded by {@code lock} (Guava's annotation is not on the launcher's classpath). */
  private final Map<TicketId, List<CompletableFuture<Ticket>>> waiting = new HashMap<>();
  /** The last event id the completions have seen: every later settlement completes its waiters. Event thread only. */
  private long head;
  private volatile boolean running = true;
  private final Thread thread;

  Dispatcher(Function<Command, Reply> call, long head) {
    this.call = call;
    this.head = head;
    this.thread = new Thread(this::loop, "vigil-events");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
    wake();
  }

  /** Something may have been written; returns at once (called on the daemon's scheduling thread). */
  void wake() {
    wake.offer(Boolean.TRUE);
  }

  boolean onThisThread() {
    return Thread.currentThread() == thread;
  }

  Subscription listen(long afterId, Consumer<VigilEvent> consumer) {
    Listener l = new Listener(afterId, consumer);
    synchronized (lock) {
      listeners.add(l);
    }
    wake();
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

  /** Delivers what is already written, then stops; pending completions fail. */
  void stop() {
    running = false;
    wake();
    if (!onThisThread()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    List<CompletableFuture<Ticket>> pending = new ArrayList<>();
    synchronized (lock) {
      waiting.values().forEach(pending::addAll);
      waiting.clear();
      listeners.clear();
    }
    pending.forEach(f -> f.completeExceptionally(new IllegalStateException("Vigil was closed")));
  }

  private void loop() {
    while (true) {
      try {
        wake.take();
      } catch (InterruptedException e) {
        return;
      }
      try {
        drain();
      } catch (IllegalStateException e) {
        LOG.debug("events: {}", e.getMessage()); // the daemon stopped
        return;
      }
      if (!running) {
        return;
      }
    }
  }

  private void drain() {
    Ticket t;
    while ((t = finishedByCommand.poll()) != null) {
      offer(t);
    }
    // the listeners of this pass, each behind the stream read from `from`; one added meanwhile waits
    // for the next pass (its wake-up is queued), so that it, too, sees every event after its id in order
    List<Listener> these;
    long from = head;
    synchronized (lock) {
      these = List.copyOf(listeners);
    }
    for (Listener l : these) {
      from = Math.min(from, l.last);
    }
    while (true) {
      Reply r = call.apply(new Command.Events(from, PAGE));
      if (!(r instanceof Reply.EventList list)) {
        throw new AssertionError(r);
      }
      for (Event e : list.events()) {
        deliver(e, these);
        from = e.id();
      }
      if (list.events().size() < PAGE) {
        return;
      }
    }
  }

  private void deliver(Event e, List<Listener> these) {
    VigilEvent v = VigilEvent.of(e);
    for (Listener l : these) {
      if (l.last < e.id() && l.open) {
        l.last = e.id(); // before the listener sees it, so that lastId() names what it has seen
        try {
          l.consumer.accept(v);
        } catch (RuntimeException x) {
          LOG.warn("an event listener failed on event {}: {}", e.id(), x.toString());
        }
      }
    }
    if (e.id() > head) {
      head = e.id();
      boolean ends = e.ticket() != null && (e.kind() == Event.Kind.HELD
          || e.kind() == Event.Kind.SETTLED && settled(e.ticketState()));
      boolean someone;
      synchronized (lock) {
        someone = e.ticket() != null && waiting.containsKey(e.ticket());
      }
      if (ends && someone) {
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

  private final class Listener implements Subscription {
    private final Consumer<VigilEvent> consumer;
    /** Written only on the event thread. */
    private volatile long last;
    private volatile boolean open = true;

    Listener(long afterId, Consumer<VigilEvent> consumer) {
      this.last = afterId;
      this.consumer = consumer;
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
    }
  }
}
