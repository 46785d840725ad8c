package io.fsp.relaylink;

import io.fsp.relaylink.wire.RelayErrorCode;
import java.net.InetSocketAddress;

/** The relay refused the capability token: malformed, forged, expired, or for another transfer. */
public final class TokenRefusedException extends RelayRefusedException {
    public TokenRefusedException(InetSocketAddress relay, RelayErrorCode code, String text) {
        super(relay, code, text);
    }

    static boolean isTokenCode(RelayErrorCode code) {
        return code == RelayErrorCode.TOKEN_MALFORMED || code == RelayErrorCode.TOKEN_FORGED
                || code == RelayErrorCode.TOKEN_EXPIRED || code == RelayErrorCode.TOKEN_FOREIGN;
    }
}
