package io.fsp.meridian;

import java.net.InetSocketAddress;
import java.util.Random;

/**
 * What every part of a {@link MeridianNode} works with: its address, its settings, the world it sees (transport and
 * scheduler), its randomness and its rings.
 */
record NodeContext(InetSocketAddress self, MeridianConfig config, MeridianTransport transport,
                   MeridianScheduler scheduler, Random random, Rings rings) {
}
