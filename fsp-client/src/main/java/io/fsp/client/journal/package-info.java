/**
 * The resume journal: a durable, append-only record of the blocks a {@code fsp get} has verified on
 * disk, so that an interrupted transfer resumes without fetching them again.
 */
package io.fsp.client.journal;
