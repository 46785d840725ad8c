package io.fsp.meridian.wire;

import io.fsp.meridian.wire.MeridianMessage.Cookie;
import io.fsp.meridian.wire.MeridianMessage.Gossip;
import io.fsp.meridian.wire.MeridianMessage.MeasureReply;
import io.fsp.meridian.wire.MeridianMessage.MeasureRequest;
import io.fsp.meridian.wire.MeridianMessage.Ping;
import io.fsp.meridian.wire.MeridianMessage.Pong;
import io.fsp.meridian.wire.MeridianMessage.Query;
import io.fsp.meridian.wire.MeridianMessage.QueryKind;
import io.fsp.meridian.wire.MeridianMessage.QueryReply;
import io.fsp.meridian.wire.MeridianMessage.RingsReply;
import io.fsp.meridian.wire.MeridianMessage.RingsRequest;
import io.fsp.meridian.wire.MeridianMessage.ServiceReply;
import io.fsp.meridian.wire.MeridianMessage.ServiceRequest;
import io.fsp.tls.Fingerprint;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Encodes and decodes Meridian datagrams (layout in docs/protocol.md §4). Every length is checked
 * against {@link WireLimits} before anything is allocated; trailing bytes are an error. A request
 * ({@link MeridianMessage#isRequest}) carries the sender's cookie for the receiver right after the type.
 */
public final class MeridianCodec {
    public static final int MAGIC = 0x4D52; // "MR"
    /** 2: requests carry a cookie, and COOKIE answers those without a valid one. */
    public static final int VERSION = 2;
    /** Wire value of an unknown or unreachable RTT. */
    static final long RTT_UNKNOWN = 0xFFFF_FFFFL;

    static final int PING = 1;
    static final int PONG = 2;
    static final int GOSSIP = 3;
    static final int MEASURE_REQUEST = 4;
    static final int MEASURE_REPLY = 5;
    static final int QUERY = 6;
    static final int QUERY_REPLY = 7;
    static final int RINGS_REQUEST = 8;
    static final int RINGS_REPLY = 9;
    static final int SERVICE_REQUEST = 10;
    static final int SERVICE_REPLY = 11;
    static final int COOKIE = 12;
    /** Cookie value of a request sent before the receiver gave one. */
    public static final long NO_COOKIE = 0;
    static final int FINGERPRINT_BYTES = 32;

    private final WireLimits limits;

    public MeridianCodec(WireLimits limits) {
        this.limits = limits;
    }

    public WireLimits limits() {
        return limits;
    }

    // ------------------------------------------------------------------------------------ encode

    /** A decoded datagram: the message, and the cookie it carried ({@link #NO_COOKIE} for a message that is no request). */
    public record Datagram(MeridianMessage message, long cookie) { }

    /** Encodes {@code message}, a request without a cookie; fails (without sending anything) if it would exceed the limits. */
    public ByteBuf encode(MeridianMessage message, ByteBufAllocator alloc) {
        return encode(message, NO_COOKIE, alloc);
    }

    /** Encodes {@code message}, a request with {@code cookie} (ignored for other messages). */
    public ByteBuf encode(MeridianMessage message, long cookie, ByteBufAllocator alloc) {
        ByteBuf out = alloc.buffer(128);
        try {
            writeMessage(message, cookie, out);
            if (out.readableBytes() > limits.maxMessageBytes()) {
                throw new IllegalArgumentException("message length: " + out.readableBytes()
                        + " (expected: <= " + limits.maxMessageBytes() + ")");
            }
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }

    private void writeMessage(MeridianMessage message, long cookie, ByteBuf out) {
        out.writeShort(MAGIC);
        out.writeByte(VERSION);
        out.writeByte(typeOf(message));
        if (MeridianMessage.isRequest(message)) {
            out.writeLong(cookie);
        }
        writeBody(message, out);
    }

    private static int typeOf(MeridianMessage message) {
        if (message instanceof Ping) {
            return PING;
        } else if (message instanceof Pong) {
            return PONG;
        } else if (message instanceof Gossip) {
            return GOSSIP;
        } else if (message instanceof MeasureRequest) {
            return MEASURE_REQUEST;
        } else if (message instanceof MeasureReply) {
            return MEASURE_REPLY;
        } else if (message instanceof Query) {
            return QUERY;
        } else if (message instanceof QueryReply) {
            return QUERY_REPLY;
        } else if (message instanceof RingsRequest) {
            return RINGS_REQUEST;
        } else if (message instanceof RingsReply) {
            return RINGS_REPLY;
        } else if (message instanceof ServiceRequest) {
            return SERVICE_REQUEST;
        } else if (message instanceof ServiceReply) {
            return SERVICE_REPLY;
        } else if (message instanceof Cookie) {
            return COOKIE;
        }
        throw new IllegalArgumentException("message: " + message.getClass().getSimpleName());
    }

    private void writeBody(MeridianMessage message, ByteBuf out) {
        if (message instanceof Ping p) {
            out.writeLong(p.nonce());
        } else if (message instanceof Pong p) {
            out.writeLong(p.nonce());
        } else if (message instanceof Gossip g) {
            writeCount(out, g.peers().size(), limits.maxEntries(), "peers");
            g.peers().forEach(a -> writeAddress(out, a));
        } else if (message instanceof MeasureRequest m) {
            out.writeLong(m.requestId());
            writeCount(out, m.targets().size(), limits.maxTargets(), "targets");
            m.targets().forEach(a -> writeAddress(out, a));
        } else if (message instanceof MeasureReply m) {
            out.writeLong(m.requestId());
            writeCount(out, m.rttMs().size(), limits.maxEntries(), "rtts");
            m.rttMs().forEach(r -> writeRtt(out, r));
            out.writeShort(Math.min(m.probesSent(), 0xFFFF));
        } else if (message instanceof Query q) {
            out.writeLong(q.queryId());
            out.writeByte(q.kind().ordinal());
            out.writeByte(q.hopsTaken()).writeByte(q.hopLimit());
            out.writeShort(q.wanted());
            out.writeInt(q.probes());
            writeAddress(out, q.origin());
            writeCount(out, q.constraints().size(), limits.maxTargets(), "constraints");
            for (Constraint c : q.constraints()) {
                writeAddress(out, c.target());
                writeRtt(out, c.maxRttMs());
            }
            writeHits(out, q.hits(), q.constraints().size());
        } else if (message instanceof QueryReply r) {
            out.writeLong(r.queryId());
            out.writeByte(r.hops()).writeInt(r.probes());
            int targets = r.hits().isEmpty() ? 0 : r.hits().get(0).rttMs().size();
            writeCount(out, targets, limits.maxTargets(), "targets");
            writeHits(out, r.hits(), targets);
        } else if (message instanceof RingsRequest r) {
            out.writeLong(r.requestId());
        } else if (message instanceof RingsReply r) {
            out.writeLong(r.requestId());
            writeCount(out, r.entries().size(), limits.maxEntries(), "entries");
            for (RingEntry e : r.entries()) {
                out.writeByte(e.ring()).writeByte(e.primary() ? 1 : 0);
                writeAddress(out, e.peer());
                writeRtt(out, e.rttMs());
            }
        } else if (message instanceof ServiceRequest r) {
            out.writeLong(r.requestId());
        } else if (message instanceof ServiceReply r) {
            out.writeLong(r.requestId());
            if (r.service().isEmpty()) {
                out.writeShort(0).writeByte(0);
            } else {
                out.writeShort(r.service().get().blockPort()).writeByte(FINGERPRINT_BYTES)
                        .writeBytes(r.service().get().fingerprint().sha256());
            }
        } else if (message instanceof Cookie c) {
            out.writeLong(c.cookie());
        } else {
            throw new IllegalArgumentException("message: " + message.getClass().getSimpleName());
        }
    }

    private void writeHits(ByteBuf out, List<QueryHit> hits, int targets) {
        writeCount(out, hits.size(), limits.maxEntries(), "hits");
        for (QueryHit h : hits) {
            if (h.rttMs().size() != targets) {
                throw new IllegalArgumentException("hit rtts: " + h.rttMs().size() + " (expected: " + targets + ")");
            }
            writeAddress(out, h.node());
            h.rttMs().forEach(r -> writeRtt(out, r));
        }
    }

    private static void writeCount(ByteBuf out, int count, int max, String what) {
        if (count > max) {
            throw new IllegalArgumentException(what + ": " + count + " (expected: <= " + max + ")");
        }
        out.writeByte(count);
    }

    private static void writeAddress(ByteBuf out, InetSocketAddress address) {
        InetAddress ip = address.getAddress();
        if (ip == null) {
            throw new IllegalArgumentException("address: " + address + " (expected: resolved)");
        }
        byte[] bytes = ip.getAddress();
        out.writeByte(bytes.length == 4 ? 4 : 6).writeBytes(bytes).writeShort(address.getPort());
    }

    private static void writeRtt(ByteBuf out, double rttMs) {
        long micros = rttMs < 0 || Double.isNaN(rttMs) ? RTT_UNKNOWN
                : Math.min(RTT_UNKNOWN - 1, Math.round(rttMs * 1000));
        out.writeInt((int) micros);
    }

    // ------------------------------------------------------------------------------------ decode

    /** Decodes one datagram's message; consumes {@code in} fully or throws. */
    public MeridianMessage decode(ByteBuf in) {
        return decodeDatagram(in).message();
    }

    /** Decodes one datagram: its message and, for a request, its cookie; consumes {@code in} fully or throws. */
    public Datagram decodeDatagram(ByteBuf in) {
        int length = in.readableBytes();
        if (length > limits.maxMessageBytes()) {
            throw new MeridianFormatException("length: " + length + " (expected: <= " + limits.maxMessageBytes() + ")");
        }
        need(in, 4, "header");
        int magic = in.readUnsignedShort();
        if (magic != MAGIC) {
            throw new MeridianFormatException("magic: 0x" + Integer.toHexString(magic) + " (expected: 0x4d52)");
        }
        int version = in.readUnsignedByte();
        if (version != VERSION) {
            throw new MeridianFormatException("version: " + version + " (expected: " + VERSION + ")");
        }
        int type = in.readUnsignedByte();
        long cookie = switch (type) {
            case GOSSIP, MEASURE_REQUEST, QUERY, RINGS_REQUEST, SERVICE_REQUEST -> readLong(in, "cookie");
            default -> NO_COOKIE;
        };
        MeridianMessage message = switch (type) {
            case PING -> new Ping(readLong(in, "nonce"));
            case PONG -> new Pong(readLong(in, "nonce"));
            case GOSSIP -> new Gossip(readAddresses(in, readCount(in, limits.maxEntries(), "peers")));
            case MEASURE_REQUEST -> {
                long id = readLong(in, "requestId");
                yield new MeasureRequest(id, readAddresses(in, readCount(in, limits.maxTargets(), "targets")));
            }
            case MEASURE_REPLY -> {
                long id = readLong(in, "requestId");
                int n = readCount(in, limits.maxEntries(), "rtts");
                List<Double> rtts = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    rtts.add(readRtt(in));
                }
                need(in, 2, "probesSent");
                yield new MeasureReply(id, rtts, in.readUnsignedShort());
            }
            case QUERY -> readQuery(in);
            case QUERY_REPLY -> {
                long id = readLong(in, "queryId");
                need(in, 5, "query reply header");
                int hops = in.readUnsignedByte();
                int probes = in.readInt();
                if (probes < 0) {
                    throw new MeridianFormatException("probes: " + Integer.toUnsignedString(probes) + " (expected: < 2^31)");
                }
                int targets = readCount(in, limits.maxTargets(), "targets");
                yield new QueryReply(id, hops, probes, readHits(in, targets));
            }
            case RINGS_REQUEST -> new RingsRequest(readLong(in, "requestId"));
            case RINGS_REPLY -> {
                long id = readLong(in, "requestId");
                int n = readCount(in, limits.maxEntries(), "entries");
                List<RingEntry> entries = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    need(in, 2, "ring entry");
                    int ring = in.readUnsignedByte();
                    int primary = in.readUnsignedByte();
                    if (primary > 1) {
                        throw new MeridianFormatException("primary: " + primary + " (expected: 0 or 1)");
                    }
                    entries.add(new RingEntry(ring, primary == 1, readAddress(in), readRtt(in)));
                }
                yield new RingsReply(id, entries);
            }
            case SERVICE_REQUEST -> new ServiceRequest(readLong(in, "requestId"));
            case SERVICE_REPLY -> readServiceReply(in);
            case COOKIE -> new Cookie(readLong(in, "cookie"));
            default -> throw new MeridianFormatException("type: " + type + " (expected: 1..12)");
        };
        if (in.isReadable()) {
            throw new MeridianFormatException("trailing bytes: " + in.readableBytes() + " (expected: 0)");
        }
        return new Datagram(message, cookie);
    }

    private static ServiceReply readServiceReply(ByteBuf in) {
        long id = readLong(in, "requestId");
        need(in, 3, "service");
        int port = in.readUnsignedShort();
        int n = in.readUnsignedByte();
        int expected = port == 0 ? 0 : FINGERPRINT_BYTES;
        if (n != expected) {
            throw new MeridianFormatException("fingerprint length: " + n + " (expected: " + expected
                    + (port == 0 ? " when port is 0)" : ")"));
        }
        if (port == 0) {
            return new ServiceReply(id, Optional.empty());
        }
        need(in, n, "fingerprint");
        byte[] sha256 = new byte[n];
        in.readBytes(sha256);
        return new ServiceReply(id, Optional.of(new ServiceInfo(port, new Fingerprint(sha256))));
    }

    private Query readQuery(ByteBuf in) {
        long id = readLong(in, "queryId");
        need(in, 9, "query header");
        int kindCode = in.readUnsignedByte();
        if (kindCode >= QueryKind.values().length) {
            throw new MeridianFormatException("kind: " + kindCode + " (expected: 0.." + (QueryKind.values().length - 1) + ")");
        }
        QueryKind kind = QueryKind.values()[kindCode];
        int hopsTaken = in.readUnsignedByte();
        int hopLimit = in.readUnsignedByte();
        int wanted = in.readUnsignedShort();
        int probes = in.readInt();
        if (probes < 0) {
            throw new MeridianFormatException("probes: " + Integer.toUnsignedString(probes) + " (expected: < 2^31)");
        }
        InetSocketAddress origin = readAddress(in);
        int n = readCount(in, limits.maxTargets(), "constraints");
        if (n == 0 || (kind == QueryKind.CLOSEST && n != 1)) {
            throw new MeridianFormatException("constraints: " + n + " (expected: " + (kind == QueryKind.CLOSEST ? "1" : ">= 1") + ")");
        }
        List<Constraint> constraints = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            InetSocketAddress target = readAddress(in);
            double bound = readRtt(in);
            if (bound < 0 || bound > Constraint.MAX_RTT_MS) {
                throw new MeridianFormatException("constraint bound: " + bound + " ms (expected: 0.."
                        + (long) Constraint.MAX_RTT_MS + ")");
            }
            constraints.add(new Constraint(target, bound));
        }
        return new Query(id, kind, hopsTaken, hopLimit, wanted, probes, origin, constraints, readHits(in, n));
    }

    private List<QueryHit> readHits(ByteBuf in, int targets) {
        int n = readCount(in, limits.maxEntries(), "hits");
        List<QueryHit> hits = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            InetSocketAddress node = readAddress(in);
            List<Double> rtts = new ArrayList<>(targets);
            for (int t = 0; t < targets; t++) {
                rtts.add(readRtt(in));
            }
            hits.add(new QueryHit(node, rtts));
        }
        return hits;
    }

    private static int readCount(ByteBuf in, int max, String what) {
        need(in, 1, what);
        int n = in.readUnsignedByte();
        if (n > max) {
            throw new MeridianFormatException(what + ": " + n + " (expected: <= " + max + ")");
        }
        return n;
    }

    private static List<InetSocketAddress> readAddresses(ByteBuf in, int n) {
        List<InetSocketAddress> list = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            list.add(readAddress(in));
        }
        return list;
    }

    private static InetSocketAddress readAddress(ByteBuf in) {
        need(in, 1, "address family");
        int family = in.readUnsignedByte();
        int size = switch (family) {
            case 4 -> 4;
            case 6 -> 16;
            default -> throw new MeridianFormatException("address family: " + family + " (expected: 4 or 6)");
        };
        need(in, size + 2, "address");
        byte[] bytes = new byte[size];
        in.readBytes(bytes);
        int port = in.readUnsignedShort();
        if (port == 0) {
            throw new MeridianFormatException("port: 0 (expected: 1..65535)");
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(bytes), port);
        } catch (UnknownHostException e) {
            throw new MeridianFormatException("address: " + e.getMessage()); // unreachable: length checked
        }
    }

    private static double readRtt(ByteBuf in) {
        need(in, 4, "rtt");
        long micros = in.readUnsignedInt();
        return micros == RTT_UNKNOWN ? -1 : micros / 1000.0;
    }

    private static long readLong(ByteBuf in, String what) {
        need(in, 8, what);
        return in.readLong();
    }

    private static void need(ByteBuf in, int bytes, String what) {
        if (in.readableBytes() < bytes) {
            throw new MeridianFormatException(what + ": truncated, " + in.readableBytes()
                    + " bytes left (expected: >= " + bytes + ")");
        }
    }
}
