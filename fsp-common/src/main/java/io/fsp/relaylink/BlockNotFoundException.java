package io.fsp.relaylink;

import io.fsp.token.TransferId;
import java.net.InetSocketAddress;

/** The relay does not hold the block: never placed there, already confirmed, or expired. */
public final class BlockNotFoundException extends RelayException {
    private final long seq;

    public BlockNotFoundException(InetSocketAddress relay, TransferId transferId, long seq) {
        super(relay, "block " + seq + " of transfer " + transferId + " not found", null);
        this.seq = seq;
    }

    public long seq() {
        return seq;
    }
}
