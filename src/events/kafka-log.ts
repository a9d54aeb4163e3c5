import { Kafka, logLevel, type KafkaConfig, type logCreator, type SASLOptions } from 'kafkajs';
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from '../log.js';
import { fixKafkajsIdleTimers } from './kafkajs-idle-fix.js';

/**
 * kafkajs logs every failed connection attempt as an ERROR and a lot of INFO chatter about
 * group membership. The transport logs the state changes that matter itself, so kafkajs'
 * ERROR/WARN become pino warn, INFO becomes debug, DEBUG becomes trace.
 */
export function kafkaLogCreator(logger: Logger): logCreator {
  const child = logger.child({ component: 'kafkajs' });
  return () => ({ level, log }) => {
    const { message, timestamp: _ts, logger: _name, ...fields } = log as { message: string; timestamp?: string; logger?: string };
    switch (level) {
      case logLevel.ERROR:
      case logLevel.WARN:
        child.warn(fields, message);
        break;
      case logLevel.INFO:
        child.debug(fields, message);
        break;
      default:
        child.trace(fields, message);
    }
  };
}

/** Only ask kafkajs to produce what pino will print: debug formatting costs on every request. */
export function kafkaLogLevel(logger: Logger): logLevel {
  switch (logger.level) {
    case 'trace':
      return logLevel.DEBUG;
    case 'debug':
      return logLevel.INFO;
    case 'silent':
      return logLevel.NOTHING;
    case 'fatal':
    case 'error':
      return logLevel.ERROR;
    default:
      return logLevel.WARN;
  }
}

/** Where a kafkajs client connects (kafka.* in warden.yaml). */
export interface KafkaConnection {
  brokers: string[];
  ssl?: boolean | ConnectionOptions;
  sasl?: unknown;
}

/**
 * A kafkajs client as every Warden Kafka user builds it (events, the replay log, scan jobs): short
 * connection timeout, one quick retry (our own loops retry with backoff; kafkajs' retries only
 * delay noticing an outage), kafkajs' logs through pino. `extra` adds what one user needs
 * (a request timeout).
 */
export function kafkaClient(conn: KafkaConnection, clientId: string, logger: Logger, extra: Partial<KafkaConfig> = {}): Kafka {
  fixKafkajsIdleTimers();
  return new Kafka({
    clientId,
    brokers: conn.brokers,
    ssl: conn.ssl,
    sasl: conn.sasl as SASLOptions | undefined,
    connectionTimeout: 2_000,
    retry: { retries: 1, initialRetryTime: 100, maxRetryTime: 1_000 },
    logLevel: kafkaLogLevel(logger),
    logCreator: kafkaLogCreator(logger),
    ...extra,
  });
}
