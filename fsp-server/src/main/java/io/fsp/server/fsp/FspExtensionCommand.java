package io.fsp.server.fsp;

import io.fsp.server.ftp.Access;
import io.fsp.server.ftp.FtpCommand;
import io.fsp.server.ftp.FtpSession;
import io.fsp.server.stripe.StripeContext;
import io.fsp.server.stripe.StripeSession;
import io.netty.util.Attribute;
import io.netty.util.AttributeKey;

/**
 * What the FSP extension's commands (FSPO, FHAV, FRET, FGET) share: they need a logged-in user, and TLS on the
 * control channel unless the server is configured otherwise, because the AES key and the capability token
 * travel on it.
 */
abstract class FspExtensionCommand implements FtpCommand {
    private static final AttributeKey<StripeSession> STATE = AttributeKey.valueOf("fsp.state");
    protected final StripeContext stripe;

    FspExtensionCommand(StripeContext stripe) {
        this.stripe = stripe;
    }

    /**
     * The FSP state of {@code session}'s control connection: an attribute of its channel, made on first use and
     * forgotten when the connection closes.
     */
    protected final StripeSession state(FtpSession session) {
        Attribute<StripeSession> attribute = session.channel().attr(STATE);
        StripeSession state = attribute.get();
        if (state == null) {
            StripeSession made = new StripeSession();
            state = attribute.setIfAbsent(made);
            if (state == null) {
                state = made;
                session.channel().closeFuture().addListener(f -> made.forgetAll());
            }
        }
        return state;
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
