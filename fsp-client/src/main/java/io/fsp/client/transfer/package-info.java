/**
 * Third-party transfers: this client has one server collect a data set from another server's relays, and never
 * touches the data itself.
 */
package io.fsp.client.transfer;
