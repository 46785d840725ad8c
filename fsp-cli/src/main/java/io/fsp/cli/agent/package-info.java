/**
 * The resident client: {@code fsp} commands run in one warm JVM per user (the agent), reached by a thin launcher over
 * a UNIX-domain socket in a private directory. {@link io.fsp.cli.agent.Frames} is the wire between them,
 * {@link io.fsp.cli.agent.AgentAddress} where an agent for this user, build and namespaces listens,
 * {@link io.fsp.cli.agent.AgentClient} the launcher's side and {@link io.fsp.cli.agent.AgentServer} the agent's.
 * Nothing here knows the commands: the agent runs them through a {@link io.fsp.cli.agent.AgentServer.Runner}.
 */
package io.fsp.cli.agent;
