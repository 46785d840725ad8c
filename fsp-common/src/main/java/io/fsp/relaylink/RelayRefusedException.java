package io.fsp.relaylink;

import io.fsp.relaylink.wire.RelayErrorCode;
import java.net.InetSocketAddress;

/** The relay answered a request with ERROR; {@link #code()} says why. */
public sealed class RelayRefusedException extends RelayException permits TokenRefusedException {
    private final RelayErrorCode code;
    private final String text;

    public RelayRefusedException(InetSocketAddress relay, RelayErrorCode code, String text) {
        super(relay, code + ": " + text, null);
        this.code = code;
        this.text = text;
    }

    /** What the relay said, as it said it. */
    public String text() {
        return text;
    }

    public RelayErrorCode code() {
        return code;
    }
}
