/**
 * A server and relays on loopback as child processes of {@code fsp demo}, in a work directory removed at the end:
 * the README's main job. The benchmarks (module {@code fsp-bench}) start the same setup.
 */
package io.fsp.cli.demo;
