package io.fsp.testkit.meridian.sim;

import io.fsp.meridian.MeridianScheduler;
import io.fsp.meridian.MeridianTransport;
import io.fsp.meridian.wire.MeridianMessage;
import io.fsp.meridian.wire.MeridianMessage.Ping;
import io.fsp.meridian.wire.MeridianMessage.Pong;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.BiConsumer;

/**
 * An in-process network with a virtual clock: location i of a {@link LatencyMatrix} gets the address
 * 10.x.y.z:7000, a message from i to j arrives after half their RTT, and a pair with unknown RTT loses
 * every message. One thread runs everything, in virtual-time order, so runs are reproducible.
 */
public final class SimNetwork implements MeridianScheduler {
    private static final int PORT = 7000;

    private final LatencyMatrix matrix;
    private final List<BiConsumer<InetSocketAddress, MeridianMessage>> hosts;
    private final InetSocketAddress[] addresses;
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private long now;
    private long sequence;
    private long pings;
    private long messages;
    private Tap tap = (from, to, message) -> { };

    /** Sees every message sent to a location of the matrix, delivered or not. */
    public interface Tap {
        void sent(int from, int to, MeridianMessage message);
    }

    public SimNetwork(LatencyMatrix matrix) {
        this.matrix = matrix;
        this.hosts = new ArrayList<>(Collections.nCopies(matrix.size(), null));
        this.addresses = new InetSocketAddress[matrix.size()];
        for (int i = 0; i < addresses.length; i++) {
            addresses[i] = addressOf(i);
        }
    }

    private static final class Event implements Comparable<Event>, Cancellable {
        final long at;
        final long seq;
        final Runnable task;
        boolean cancelled;

        Event(long at, long seq, Runnable task) {
            this.at = at;
            this.seq = seq;
            this.task = task;
        }

        @Override
        public int compareTo(Event o) {
            return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    static InetSocketAddress addressOf(int index) {
        try {
            byte[] ip = {10, (byte) (index >>> 16), (byte) (index >>> 8), (byte) index};
            return new InetSocketAddress(InetAddress.getByAddress(ip), PORT);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // four bytes are always a valid IPv4 address
        }
    }

    /** The location of a simulated address, or −1 if it is not one of ours. */
    public int indexOf(InetSocketAddress address) {
        byte[] ip = address.getAddress() == null ? null : address.getAddress().getAddress();
        if (ip == null || ip.length != 4 || ip[0] != 10 || address.getPort() != PORT) {
            return -1;
        }
        int index = (ip[1] & 0xFF) << 16 | (ip[2] & 0xFF) << 8 | (ip[3] & 0xFF);
        return index < addresses.length ? index : -1;
    }

    public InetSocketAddress address(int index) {
        return addresses[index];
    }

    public LatencyMatrix matrix() {
        return matrix;
    }

    /** Installs what runs at location {@code index}: a node's message handler. */
    public void attach(int index, BiConsumer<InetSocketAddress, MeridianMessage> host) {
        hosts.set(index, host);
    }

    /** A location that only answers probes, like a client's probe endpoint. */
    public void attachResponder(int index) {
        MeridianTransport t = transport(index);
        attach(index, (from, m) -> {
            if (m instanceof Ping p) {
                t.send(from, new Pong(p.nonce()));
            }
        });
    }

    /** Installs the one {@link Tap} (replacing the previous). */
    public void tap(Tap t) {
        tap = t;
    }

    /** The transport of location {@code index}. */
    public MeridianTransport transport(int index) {
        return (to, message) -> {
            messages++;
            if (message instanceof Ping) {
                pings++;
            }
            int dest = indexOf(to);
            if (dest < 0) {
                return;
            }
            tap.sent(index, dest, message);
            double rtt = matrix.rtt(index, dest);
            if (rtt < 0 || hosts.get(dest) == null) {
                return;
            }
            InetSocketAddress from = addresses[index];
            schedule((long) (rtt * 1e6 / 2), () -> {
                BiConsumer<InetSocketAddress, MeridianMessage> host = hosts.get(dest);
                if (host != null) {
                    host.accept(from, message);
                }
            });
        };
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public Cancellable schedule(long delayNanos, Runnable task) {
        Event e = new Event(now + Math.max(0, delayNanos), sequence++, task);
        events.add(e);
        return e;
    }

    /** Runs events until virtual time {@code untilNanos} (or the queue empties). */
    public void runUntil(long untilNanos) {
        while (!events.isEmpty() && events.peek().at <= untilNanos) {
            Event e = events.poll();
            now = e.at;
            if (!e.cancelled) {
                e.task.run();
            }
        }
        now = Math.max(now, untilNanos);
    }

    /** Runs events until {@code done} says so, or virtual time passes {@code limitNanos}. */
    public void runWhile(java.util.function.BooleanSupplier notDone, long limitNanos) {
        while (notDone.getAsBoolean() && !events.isEmpty() && events.peek().at <= limitNanos) {
            Event e = events.poll();
            now = e.at;
            if (!e.cancelled) {
                e.task.run();
            }
        }
    }

    /** Pings sent so far by anyone: the probe count of everything that ran. */
    public long pings() {
        return pings;
    }

    public long messages() {
        return messages;
    }
}
