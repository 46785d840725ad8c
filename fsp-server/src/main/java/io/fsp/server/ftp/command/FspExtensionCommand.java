package io.fsp.server.ftp.command;

import io.fsp.server.stripe.StripeContext;

/**
 * What the FSP extension's commands (FSPO, FRET, FGET) share: they need a logged-in user, and TLS on the
 * control channel unless the server is configured otherwise, because the AES key and the capability token
 * travel on it.
 */
abstract class FspExtensionCommand implements FtpCommand {
    protected final StripeContext stripe;

    FspExtensionCommand(StripeContext stripe) {
        this.stripe = stripe;
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
