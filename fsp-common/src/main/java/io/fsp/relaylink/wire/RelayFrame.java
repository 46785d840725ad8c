package io.fsp.relaylink.wire;

import io.fsp.relaylink.wire.RelayMessage.Block;
import io.fsp.relaylink.wire.RelayMessage.BlockFrame;
import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every relay frame kind, declared once: its type byte (never changes once published), its message class, its body
 * size and how its body after the request id is read and written. The decoder, the encoder and the relay's dispatch
 * all work from this table. A new frame is a constant here and a record in {@link RelayMessage}.
 */
public enum RelayFrame {
    HELLO(0x01, RelayMessage.Hello.class, 4 + 2, 0,
            (id, b) -> new RelayMessage.Hello(id, b.readUnsignedShort()), (m, b) -> b.writeShort(m.version())),
    WELCOME(0x02, RelayMessage.Welcome.class, 4 + 2 + 1, 0,
            (id, b) -> new RelayMessage.Welcome(id, b.readUnsignedShort(), RelayRole.ofWire(b.readUnsignedByte())),
            (m, b) -> b.writeShort(m.version()).writeByte(m.role().wire())),
    BIND_REQUEST(0x03, RelayMessage.BindRequest.class, 4, 0, (id, b) -> new RelayMessage.BindRequest(id), (m, b) -> { }),
    OPEN_TRANSFER(0x10, RelayMessage.OpenTransfer.class, 4 + TransferId.LENGTH + TokenKey.LENGTH + 8 + 8, 1,
            (id, b) -> new RelayMessage.OpenTransfer(id, transferId(b), new TokenKey(bytes(b, TokenKey.LENGTH)),
                    Instant.ofEpochMilli(b.readLong()), b.readLong(), b.isReadable() && openFlags(b.readUnsignedByte())),
            RelayFrame::writeOpen),
    PUT_BLOCK(0x11, RelayMessage.PutBlock.class, -1, 0, (id, b) -> {
        TransferId t = blockPrefix(b);
        long seq = seq(b);
        return new RelayMessage.PutBlock(id, t, seq, b.readRetainedSlice(b.readableBytes()));
    }, RelayFrame::unwritable),
    ABORT_TRANSFER(0x12, RelayMessage.AbortTransfer.class, 4 + TransferId.LENGTH, 0,
            (id, b) -> new RelayMessage.AbortTransfer(id, transferId(b)), (m, b) -> b.writeLong(m.transferId().value())),
    FINISH_TRANSFER(0x13, RelayMessage.FinishTransfer.class, 4 + TransferId.LENGTH, 0,
            (id, b) -> new RelayMessage.FinishTransfer(id, transferId(b)), (m, b) -> b.writeLong(m.transferId().value())),
    AUTHORIZE(0x20, RelayMessage.Authorize.class, -1, 0, RelayFrame::readAuthorize, (m, b) -> b.writeBytes(m.token())),
    GET_BLOCK(0x21, RelayMessage.GetBlock.class, 4 + TransferId.LENGTH + 8, 0,
            (id, b) -> new RelayMessage.GetBlock(id, transferId(b), b.readLong()),
            (m, b) -> b.writeLong(m.transferId().value()).writeLong(m.seq())),
    CONFIRM(0x22, RelayMessage.Confirm.class, -1, 0,
            (id, b) -> new RelayMessage.Confirm(id, transferId(b), seqs(b)), (m, b) -> writeSeqs(m.transferId(), m.seqs(), b)),
    STATUS(0x23, RelayMessage.StatusRequest.class, 4 + TransferId.LENGTH, 0,
            (id, b) -> new RelayMessage.StatusRequest(id, transferId(b)), (m, b) -> b.writeLong(m.transferId().value())),
    HOLDS(0x24, RelayMessage.Holds.class, -1, 0,
            (id, b) -> new RelayMessage.Holds(id, transferId(b), seqs(b)), (m, b) -> writeSeqs(m.transferId(), m.seqs(), b)),
    OK(0x80, RelayMessage.Ok.class, 4, 0, (id, b) -> new RelayMessage.Ok(id), (m, b) -> { }),
    BLOCK(0x81, RelayMessage.Block.class, -1, 0, (id, b) -> {
        TransferId t = blockPrefix(b);
        long seq = seq(b);
        return new Block(id, t, seq, b.readRetainedSlice(b.readableBytes()));
    }, RelayFrame::unwritable),
    NOT_FOUND(0x82, RelayMessage.NotFound.class, 4 + TransferId.LENGTH + 8, 0,
            (id, b) -> new RelayMessage.NotFound(id, transferId(b), b.readLong()),
            (m, b) -> b.writeLong(m.transferId().value()).writeLong(m.seq())),
    CONFIRMED(0x83, RelayMessage.Confirmed.class, 4 + 4, 0,
            (id, b) -> new RelayMessage.Confirmed(id, b.readUnsignedInt()),
            (m, b) -> b.writeInt((int) Math.min(m.freed(), 0xFFFF_FFFFL))),
    STATUS_REPLY(0x84, RelayMessage.Status.class, 4 + TransferId.LENGTH + 5 * 8, 8,
            (id, b) -> new RelayMessage.Status(id, transferId(b), b.readLong(), b.readLong(),
                    Instant.ofEpochMilli(b.readLong()), b.readLong(), b.readLong(),
                    b.isReadable() ? reserved(b.readLong()) : RelayMessage.Status.UNKNOWN),
            RelayFrame::writeStatus),
    BIND_GRANT(0x85, RelayMessage.BindGrant.class, 4 + ClearLink.TICKET_LENGTH + ClearLink.SECRET_LENGTH, 0,
            (id, b) -> new RelayMessage.BindGrant(id, bytes(b, ClearLink.TICKET_LENGTH), bytes(b, ClearLink.SECRET_LENGTH)),
            (m, b) -> b.writeBytes(m.ticket()).writeBytes(m.secret())),
    HELD(0x86, RelayMessage.Held.class, -1, 0,
            (id, b) -> new RelayMessage.Held(id, transferId(b), seqs(b)), (m, b) -> writeSeqs(m.transferId(), m.seqs(), b)),
    ERROR(0xFF, RelayMessage.Error.class, -1, 0, RelayFrame::readError,
            (m, b) -> b.writeShort(m.code().wire()).writeCharSequence(m.text(), StandardCharsets.UTF_8));

    /** type u8 + body length u32. */
    public static final int HEADER_LENGTH = 5;
    /** id u32 + transfer id u64 + seq i64: what precedes the bytes of PUT_BLOCK and BLOCK. */
    public static final int BLOCK_PREFIX = 4 + 8 + 8;

    private static final RelayFrame[] BY_WIRE = new RelayFrame[256];
    private static final Map<Class<?>, RelayFrame> BY_CLASS;

    static {
        Map<Class<?>, RelayFrame> byClass = new java.util.HashMap<>();
        for (RelayFrame f : values()) {
            BY_WIRE[f.wire] = f;
            byClass.put(f.message, f);
        }
        byClass.put(RelayMessage.BlockRegion.class, BLOCK); // a BLOCK sent from a file: the same frame
        BY_CLASS = Map.copyOf(byClass);
    }

    private final int wire;
    private final Class<? extends RelayMessage> message;
    private final int size;
    private final int optional;
    private final Reader reader;
    private final Writer<RelayMessage> writer;

    /**
     * @param size the body's length, its id included, or -1 when it varies (checked as it is read)
     * @param optional bytes the body may carry beyond {@code size} (an optional trailing field)
     */
    <M extends RelayMessage> RelayFrame(int wire, Class<M> message, int size, int optional, Reader reader,
                                        Writer<? super M> writer) {
        this.wire = wire;
        this.message = message;
        this.size = size;
        this.optional = optional;
        this.reader = reader;
        this.writer = (m, b) -> writer.write(message.cast(m), b);
    }

    /** The frame's type byte. */
    public int wire() {
        return wire;
    }

    public Class<? extends RelayMessage> message() {
        return message;
    }

    /** Whether the frame carries block bytes (PUT_BLOCK, BLOCK): it may be as large as a block. */
    public boolean carriesBlock() {
        return this == PUT_BLOCK || this == BLOCK;
    }

    /** The frame with this type byte, or null for an unknown one. */
    public static RelayFrame ofWire(int type) {
        return type >= 0 && type < BY_WIRE.length ? BY_WIRE[type] : null;
    }

    /** The frame that carries {@code m}. */
    public static RelayFrame of(RelayMessage m) {
        RelayFrame f = BY_CLASS.get(m.getClass());
        if (f == null) {
            throw new IllegalArgumentException("not a relay frame: " + m.getClass().getName());
        }
        return f;
    }

    /** Reads a whole body (the id first); {@link IllegalArgumentException} or {@link IndexOutOfBoundsException} if bad. */
    RelayMessage read(ByteBuf body) {
        int n = body.readableBytes();
        if (size >= 0 && n != size && (optional == 0 || n != size + optional)) {
            throw new IllegalArgumentException("length: " + n + " (expected: " + size + ")");
        }
        if (n < 4) {
            throw new IllegalArgumentException("length: " + n + " (expected: >= 4)");
        }
        return reader.read(body.readInt(), body);
    }

    /** Writes the body of a frame without block bytes after its id. */
    void write(RelayMessage m, ByteBuf buf) {
        writer.write(m, buf);
    }

    /** Reads a body after its id. */
    interface Reader {
        RelayMessage read(int id, ByteBuf body);
    }

    /** Writes a body after its id. */
    interface Writer<M> {
        void write(M msg, ByteBuf buf);
    }

    private static void unwritable(BlockFrame m, ByteBuf buf) {
        throw new IllegalStateException("block frames are written by the encoder: " + m);
    }

    private static void writeOpen(RelayMessage.OpenTransfer o, ByteBuf buf) {
        buf.writeLong(o.transferId().value()).writeBytes(o.tokenKey().bytes())
                .writeLong(o.expiresAt().toEpochMilli()).writeLong(o.space());
        if (o.retained()) {
            buf.writeByte(RelayMessage.OpenTransfer.RETAIN); // absent otherwise: the same bytes as before retention
        }
    }

    private static void writeStatus(RelayMessage.Status s, ByteBuf buf) {
        buf.writeLong(s.transferId().value()).writeLong(s.blocks()).writeLong(s.bytes())
                .writeLong(s.expiresAt().toEpochMilli()).writeLong(s.relayUsed()).writeLong(s.relayQuota());
        if (s.reserved() != RelayMessage.Status.UNKNOWN) {
            buf.writeLong(s.reserved());
        }
    }

    private static void writeSeqs(TransferId transfer, List<Long> seqs, ByteBuf buf) {
        buf.writeLong(transfer.value());
        seqs.forEach(buf::writeLong);
    }

    private static RelayMessage readAuthorize(int id, ByteBuf body) {
        int n = body.readableBytes();
        if (n < 1 || n > RelayLimits.MAX_TOKEN_BYTES) {
            throw new IllegalArgumentException("token: " + n + " bytes (expected: 1.." + RelayLimits.MAX_TOKEN_BYTES + ")");
        }
        return new RelayMessage.Authorize(id, bytes(body, n));
    }

    private static RelayMessage readError(int id, ByteBuf body) {
        int code = body.readUnsignedShort();
        int n = body.readableBytes();
        if (n > RelayLimits.MAX_ERROR_TEXT * 3) {
            throw new IllegalArgumentException("error text: " + n + " bytes (expected: <= "
                    + RelayLimits.MAX_ERROR_TEXT * 3 + ")");
        }
        return new RelayMessage.Error(id, RelayErrorCode.ofWire(code),
                body.readCharSequence(n, StandardCharsets.UTF_8).toString());
    }

    /** OPEN_TRANSFER's flags: whether the transfer is retained; unknown bits are refused. */
    private static boolean openFlags(int flags) {
        if ((flags & ~RelayMessage.OpenTransfer.RETAIN) != 0) {
            throw new IllegalArgumentException("open flags: " + flags + " (expected: 0 or "
                    + RelayMessage.OpenTransfer.RETAIN + ")");
        }
        return flags == RelayMessage.OpenTransfer.RETAIN;
    }

    /** STATUS_REPLY's reserved bytes, when sent: never negative ({@link RelayMessage.Status#UNKNOWN} is its absence). */
    private static long reserved(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("reserved: " + bytes + " (expected: >= 0)");
        }
        return bytes;
    }

    /** The rest of the body as sequence numbers, at most {@link RelayLimits#MAX_CONFIRM_SEQS} (before reading them). */
    private static List<Long> seqs(ByteBuf body) {
        int n = body.readableBytes();
        if (n % 8 != 0) {
            throw new IllegalArgumentException("seq list: " + n + " bytes (expected: a multiple of 8)");
        }
        if (n / 8 > RelayLimits.MAX_CONFIRM_SEQS) {
            throw new IllegalArgumentException("seqs: " + n / 8 + " (expected: 1.." + RelayLimits.MAX_CONFIRM_SEQS + ")");
        }
        List<Long> seqs = new ArrayList<>(n / 8);
        while (body.isReadable()) {
            seqs.add(body.readLong());
        }
        return seqs;
    }

    private static TransferId blockPrefix(ByteBuf body) {
        if (body.readableBytes() < BLOCK_PREFIX - 4 + 1) {
            throw new IllegalArgumentException("length: " + (body.readableBytes() + 4) + " (expected: >= "
                    + (BLOCK_PREFIX + 1) + ")");
        }
        return transferId(body);
    }

    private static long seq(ByteBuf body) {
        long seq = body.readLong();
        if (seq < 0) {
            throw new IllegalArgumentException("seq: " + seq + " (expected: >= 0)");
        }
        return seq;
    }

    private static TransferId transferId(ByteBuf body) {
        return new TransferId(body.readLong());
    }

    private static byte[] bytes(ByteBuf body, int n) {
        byte[] b = new byte[n];
        body.readBytes(b);
        return b;
    }
}
