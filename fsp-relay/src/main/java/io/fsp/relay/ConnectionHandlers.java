package io.fsp.relay;

import io.fsp.relay.store.BlockStore;
import io.netty.channel.ChannelHandler;

/**
 * What a program that embeds the relay adds to each of its connections ({@link RelayConfig#handlers()}): a handler
 * between the frame codec and the session ({@code RelayServerInitializer.EXTRA}), which sees every
 * {@code RelayMessage} both ways and may add byte-level handlers right behind the TLS handler
 * ({@code RelayServerInitializer.SSL}). Given in Java only: the {@code fsp-relay} program adds none, and with
 * {@link #NONE} the pipeline has no extra handler at all.
 */
@FunctionalInterface
public interface ConnectionHandlers {
    ConnectionHandlers NONE = store -> {
        throw new UnsupportedOperationException("no handler");
    };

    /** A new handler for one connection of the relay whose blocks {@code store} holds. */
    ChannelHandler newHandler(BlockStore store);
}
