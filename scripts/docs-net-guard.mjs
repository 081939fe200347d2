/**
 * Preloaded into every Node process a docs block starts (NODE_OPTIONS=--import): a connection to anything but
 * loopback fails at once with one line, so a block that would reach a public host fails the docs runner instead of
 * depending on the network. Unix sockets and named pipes pass.
 */
import net from 'node:net';

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1|\[::1\]|0\.0\.0\.0|::ffff:127\.\d+\.\d+\.\d+)$/i;

function hostOf(args) {
  const [first] = args;
  if (Array.isArray(first)) return hostOf(first);
  if (first && typeof first === 'object') return first.path ? null : (first.host ?? 'localhost');
  if (typeof first === 'string' && !/^\d+$/.test(first)) return null; // a path
  return typeof args[1] === 'string' ? args[1] : 'localhost';
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const host = hostOf(args);
  if (host !== null && !LOOPBACK.test(host)) {
    const error = Object.assign(new Error(`docs-runner: network beyond loopback refused (${host})`), { code: 'ECONNREFUSED' });
    process.nextTick(() => this.destroy(error));
    return this;
  }
  return connect.apply(this, args);
};
