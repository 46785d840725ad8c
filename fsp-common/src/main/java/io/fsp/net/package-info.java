/** Addresses and TCP socket options shared by FSP's programs. */
package io.fsp.net;
