package io.fsp.server.fsp;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.stripe.StripeContext;
import io.fsp.server.stripe.StripeSession;

/**
 * What the FSP extension's commands (FSPO, FHAV, FRET, FGET) share: they need a logged-in user, and TLS on the
 * control channel unless the server is configured otherwise, because the AES key and the capability token
 * travel on it.
 */
abstract class FspExtensionCommand implements FtpCommand {
    protected final StripeContext stripe;

    FspExtensionCommand(StripeContext stripe) {
        this.stripe = stripe;
    }

    /** The FSP state of {@code session}'s control connection. */
    protected final StripeSession state(FtpSession session) {
        return stripe.session(session.channel());
    }

    @Override
    public final Access access() {
        return Access.LOGGED_IN;
    }

    @Override
    public final boolean requiresTls() {
        return stripe.requireTls();
    }
}
