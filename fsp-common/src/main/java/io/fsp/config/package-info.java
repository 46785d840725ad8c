/**
 * Configuration files mapped onto records: one {@code key = value} format for every FSP program, unknown
 * keys rejected with the file and line, and the precedence defaults, then file, then command line.
 */
package io.fsp.config;
