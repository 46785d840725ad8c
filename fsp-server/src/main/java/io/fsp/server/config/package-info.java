/**
 * What the server can be told: its configuration file's keys, their defaults, and how they are read.
 */
package io.fsp.server.config;
