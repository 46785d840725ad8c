package io.fsp.server.fsp;

import io.fsp.server.config.ServerConfig;
import io.fsp.server.ftp.FtpCommands;
import io.fsp.server.join.JoinService;
import io.fsp.server.stripe.StripeContext;

/**
 * The FSP extension as the FTP core sees it: its verbs, and the guard that keeps uploads out of what FCOL collects
 * into, added to a server's command registry by one call where the server is built.
 */
public final class FspVerbs {
    private FspVerbs() {
    }

    /**
     * Registers FSPO, FHAV, FPRI, FRET, FGET and FCOL, driving {@code stripe}, FCOL's upload guard, and JOIN, by which
     * relays join through {@code joins}.
     */
    public static FtpCommands register(FtpCommands commands, StripeContext stripe, ServerConfig config,
                                       JoinService joins) {
        return commands.register(new FspoCommand(stripe))
                .register(new FhavCommand(stripe))
                .register(new FpriCommand(stripe))
                .register(new FretCommand(stripe))
                .register(new FgetCommand(stripe))
                .register(new FcolCommand(stripe, config.effectiveStateDir().resolve("fcol"), config.collection().collectTimeout()))
                .register(new JoinCommand(joins))
                .guardUploads(CollectionLocks::checkFree);
    }
}
