package io.fsp.relaylink.wire;

import io.fsp.token.TokenKey;
import io.fsp.token.TransferId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.DefaultByteBufHolder;
import java.time.Instant;
import java.util.List;

/**
 * Every frame of the relay protocol. Requests carry an {@code id} chosen by the connecting peer; every
 * reply carries the id of the request it answers (0 for an ERROR about the connection itself). Messages
 * that carry block bytes own a {@link ByteBuf} and must be released.
 */
public sealed interface RelayMessage {
    int id();

    /** Protocol version this code speaks: 2 since a clear link's PUT_BLOCK tag covers the block bytes (§3.7). */
    int VERSION = 2;

    // ---- connection set-up (either role) ----

    /** First frame of every connection: the version the peer speaks. */
    record Hello(int id, int version) implements RelayMessage {
    }

    /** Answer to HELLO: the relay's version and what this connection may do. */
    record Welcome(int id, int version, RelayRole role) implements RelayMessage {
    }

    /** Asks the relay for a clear link (§3.7) for this connection's blocks; answered by BIND_GRANT. TLS only. */
    record BindRequest(int id) implements RelayMessage {
    }

    /**
     * The ticket a clear link presents and the secret its frames' tags are made with, valid once and briefly;
     * sent only over TLS.
     */
    record BindGrant(int id, byte[] ticket, byte[] secret) implements RelayMessage {
        public BindGrant {
            if (ticket.length != ClearLink.TICKET_LENGTH || secret.length != ClearLink.SECRET_LENGTH) {
                throw new IllegalArgumentException("ticket " + ticket.length + ", secret " + secret.length
                        + " bytes (expected: " + ClearLink.TICKET_LENGTH + ", " + ClearLink.SECRET_LENGTH + ")");
            }
            ticket = ticket.clone();
            secret = secret.clone();
        }

        @Override
        public byte[] ticket() {
            return ticket.clone();
        }

        @Override
        public byte[] secret() {
            return secret.clone();
        }

        @Override
        public String toString() {
            return "BindGrant[id=" + id + "]";
        }
    }

    // ---- server to relay ----

    /**
     * Opens a transfer: registers the key its capability tokens are made with, the time after which the
     * relay drops it, and its space: the most block bytes the server will push to this relay for it (the
     * relay reserves room for it and refuses blocks beyond it; 0 is refused). A {@code retained} transfer (an
     * evacuation, whose collector comes later) is kept on disk until {@code expiresAt}, across relay restarts,
     * and never dropped for being idle; on the wire it is the optional {@code flags} byte, bit 0.
     */
    record OpenTransfer(int id, TransferId transferId, TokenKey tokenKey, Instant expiresAt, long space, boolean retained)
            implements RelayMessage {
        /** The flags byte's bit for {@link #retained}; a body without the flags byte is a transfer that is not retained. */
        public static final int RETAIN = 0x01;

        public OpenTransfer {
            expiresAt = Instant.ofEpochMilli(expiresAt.toEpochMilli());
            requireNonNegative("space", space);
        }

        /** A transfer that lives as long as its collector (not retained). */
        public OpenTransfer(int id, TransferId transferId, TokenKey tokenKey, Instant expiresAt, long space) {
            this(id, transferId, tokenKey, expiresAt, space, false);
        }

        @Override
        public String toString() {
            return "OpenTransfer[id=" + id + ", transfer=" + transferId + ", expiresAt=" + expiresAt
                    + ", space=" + space + (retained ? ", retained" : "") + "]";
        }
    }

    /** What PUT_BLOCK and BLOCK share: the request id, the transfer, the sequence number and the block bytes. */
    abstract sealed class BlockFrame extends DefaultByteBufHolder implements RelayMessage permits PutBlock, Block {
        private final int id;
        private final TransferId transferId;
        private final long seq;

        BlockFrame(int id, TransferId transferId, long seq, ByteBuf block) {
            super(block);
            requireNonNegative("seq", seq);
            this.id = id;
            this.transferId = transferId;
            this.seq = seq;
        }

        @Override
        public int id() {
            return id;
        }

        public TransferId transferId() {
            return transferId;
        }

        public long seq() {
            return seq;
        }

        @Override
        public String toString() {
            return describe(this, transferId, seq, content().readableBytes());
        }
    }

    /** One opaque block of a transfer; answered by OK once stored (the server's credit). */
    final class PutBlock extends BlockFrame {
        public PutBlock(int id, TransferId transferId, long seq, ByteBuf block) {
            super(id, transferId, seq, block);
        }

        @Override
        public PutBlock replace(ByteBuf content) {
            return new PutBlock(id(), transferId(), seq(), content);
        }
    }

    /** Drops a transfer and all its blocks at once (the server gave up). */
    record AbortTransfer(int id, TransferId transferId) implements RelayMessage {
    }

    /**
     * The server pushes nothing more into the transfer: the relay shrinks its reservation to the blocks it holds,
     * which stay for their collector.
     */
    record FinishTransfer(int id, TransferId transferId) implements RelayMessage {
    }

    // ---- client to relay ----

    /** Presents a capability token (its encoded bytes) for the transfer it names. */
    record Authorize(int id, byte[] token) implements RelayMessage {
        public Authorize {
            token = token.clone();
        }

        @Override
        public byte[] token() {
            return token.clone();
        }

        @Override
        public String toString() {
            return "Authorize[id=" + id + ", token=" + token.length + " bytes]";
        }
    }

    /** Asks for one block; answered by BLOCK or NOT_FOUND. Blocks stay until confirmed. */
    record GetBlock(int id, TransferId transferId, long seq) implements RelayMessage {
        public GetBlock {
            requireNonNegative("seq", seq);
        }
    }

    /** The client holds these blocks verified on disk: the relay frees them. Answered by CONFIRMED. */
    record Confirm(int id, TransferId transferId, List<Long> seqs) implements RelayMessage {
        public Confirm {
            seqs = List.copyOf(seqs);
            if (seqs.isEmpty() || seqs.size() > RelayLimits.MAX_CONFIRM_SEQS) {
                throw new IllegalArgumentException("seqs: " + seqs.size() + " (expected: 1.."
                        + RelayLimits.MAX_CONFIRM_SEQS + ")");
            }
            seqs.forEach(s -> requireNonNegative("seq", s));
        }
    }

    /** Asks what the relay holds of a transfer; answered by STATUS_REPLY. */
    record StatusRequest(int id, TransferId transferId) implements RelayMessage {
    }

    /** Asks which of these blocks the relay still holds, freeing nothing; answered by HELD. */
    record Holds(int id, TransferId transferId, List<Long> seqs) implements RelayMessage {
        public Holds {
            seqs = seqList(seqs, 1);
        }
    }

    // ---- relay to either ----

    /** Success without data: transfer opened or aborted, block stored, token accepted. */
    record Ok(int id) implements RelayMessage {
    }

    /** The block bytes exactly as the server put them. */
    final class Block extends BlockFrame {
        public Block(int id, TransferId transferId, long seq, ByteBuf block) {
            super(id, transferId, seq, block);
        }

        @Override
        public Block replace(ByteBuf content) {
            return new Block(id(), transferId(), seq(), content);
        }
    }

    /**
     * A BLOCK whose bytes the kernel sends from the relay's block file ({@code sendfile}), never passing through the
     * JVM: the same frame on the wire, answering {@code request} (its id, transfer and seq are the request's). Only on a
     * clear link (§3.7): TLS must see the bytes to encrypt them. The relay writes it; nobody decodes it.
     */
    final class BlockRegion extends io.netty.util.AbstractReferenceCounted implements RelayMessage {
        private final GetBlock request;
        private final io.netty.channel.FileRegion region;

        public BlockRegion(GetBlock request, io.netty.channel.FileRegion region) {
            this.request = request;
            this.region = region;
        }

        @Override
        public int id() {
            return request.id();
        }

        public TransferId transferId() {
            return request.transferId();
        }

        public long seq() {
            return request.seq();
        }

        /** The block's bytes in its file; released with this message. */
        public io.netty.channel.FileRegion region() {
            return region;
        }

        @Override
        protected void deallocate() {
            region.release();
        }

        @Override
        public BlockRegion touch(Object hint) {
            return this;
        }

        @Override
        public String toString() {
            return describe(this, request.transferId(), request.seq(), region.count());
        }
    }

    /** The relay does not hold this block (never put, already confirmed, or expired). */
    record NotFound(int id, TransferId transferId, long seq) implements RelayMessage {
    }

    /** How many of the confirmed blocks were held and are now freed. */
    record Confirmed(int id, long freed) implements RelayMessage {
        public Confirmed {
            requireNonNegative("freed", freed);
        }
    }

    /** The blocks of a HOLDS that the relay holds, in the order asked (none: an empty list). */
    record Held(int id, TransferId transferId, List<Long> seqs) implements RelayMessage {
        public Held {
            seqs = seqList(seqs, 0);
        }
    }

    /**
     * What the relay holds of one transfer, how full the relay is, and what it reserved for the transfer: the most of
     * it it holds at once, at most the space declared at OPEN_TRANSFER (a relay caps one transfer's share). On the
     * wire {@code reserved} is an optional trailing field; a relay that does not send it gives {@link #UNKNOWN}.
     */
    record Status(int id, TransferId transferId, long blocks, long bytes, Instant expiresAt, long relayUsed,
                  long relayQuota, long reserved) implements RelayMessage {
        /** {@link #reserved} of a relay too old to say it. */
        public static final long UNKNOWN = -1;

        public Status {
            expiresAt = Instant.ofEpochMilli(expiresAt.toEpochMilli());
            requireNonNegative("blocks", blocks);
            requireNonNegative("bytes", bytes);
            requireNonNegative("relayUsed", relayUsed);
            requireNonNegative("relayQuota", relayQuota);
            if (reserved != UNKNOWN) {
                requireNonNegative("reserved", reserved);
            }
        }

        /** A STATUS_REPLY without {@code reserved}. */
        public Status(int id, TransferId transferId, long blocks, long bytes, Instant expiresAt, long relayUsed,
                      long relayQuota) {
            this(id, transferId, blocks, bytes, expiresAt, relayUsed, relayQuota, UNKNOWN);
        }
    }

    /** A refused request ({@code id} != 0) or a broken connection ({@code id} == 0, then closed). */
    record Error(int id, RelayErrorCode code, String text) implements RelayMessage {
        public Error {
            if (text.length() > RelayLimits.MAX_ERROR_TEXT) {
                text = text.substring(0, RelayLimits.MAX_ERROR_TEXT);
            }
        }
    }

    /** A copy of {@code seqs}: {@code min}..{@link RelayLimits#MAX_CONFIRM_SEQS} of them, none negative. */
    private static List<Long> seqList(List<Long> seqs, int min) {
        List<Long> copy = List.copyOf(seqs);
        if (copy.size() < min || copy.size() > RelayLimits.MAX_CONFIRM_SEQS) {
            throw new IllegalArgumentException("seqs: " + copy.size() + " (expected: " + min + ".."
                    + RelayLimits.MAX_CONFIRM_SEQS + ")");
        }
        copy.forEach(s -> requireNonNegative("seq", s));
        return copy;
    }

    /** A message that carries a block, as logs name it: its bytes by count only. */
    private static String describe(RelayMessage m, TransferId transferId, long seq, long bytes) {
        return m.getClass().getSimpleName() + "[id=" + m.id() + ", transfer=" + transferId + ", seq=" + seq
                + ", bytes=" + bytes + "]";
    }

    private static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: >= 0)");
        }
    }
}
