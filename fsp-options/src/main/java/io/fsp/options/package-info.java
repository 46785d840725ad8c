/**
 * The programs' side of configuration ({@code fsp}, {@code fsp-server}, {@code fsp-relay}): declared settings
 * ({@link io.fsp.config.Settings}) as picocli options. Kept out of {@code fsp-common}, so that the client library
 * does not carry picocli.
 */
package io.fsp.options;
