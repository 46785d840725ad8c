/**
 * The Meridian overlay (Wong, Slivkins, Sirer, SIGCOMM 2005) as FSP uses it to choose relays: rings of
 * peers by measured RTT, gossip, and multi-constraint queries (paper 004 §3.1).
 */
package io.fsp.meridian;
