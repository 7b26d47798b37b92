'use strict';
// Request ids in flight in one session (one gated transport). MCP ids are unique per
// session; the SDK keys a request's HTTP stream and abort controller by its id, so a
// second request with an id still in flight would take over the first's routing. Such a
// request runs nothing and is answered -32600 with its id (the answer holds no payload).

const { own } = require('../gate/read');
const { NumberIsFinite, ObjectHasOwn, SafeMap, MapPrototypeDelete, MapPrototypeGet, MapPrototypeHas, MapPrototypeSet } = require('../gate/primordials');
const { INVALID_REQUEST, isRecord, errorResponse } = require('./messages');

/** The id of a request (a message with a method and a string or finite number id), else undefined. */
function requestIdOf(message) {
  if (!isRecord(message) || typeof own(message, 'method') !== 'string') return undefined;
  const id = own(message, 'id');
  return typeof id === 'string' || (typeof id === 'number' && NumberIsFinite(id)) ? id : undefined;
}

/** The id a response answers (a message with an id and a result or an error, no method), else undefined. */
function answeredIdOf(message) {
  if (!isRecord(message) || ObjectHasOwn(message, 'method')) return undefined;
  if (!ObjectHasOwn(message, 'result') && !ObjectHasOwn(message, 'error')) return undefined;
  const id = own(message, 'id');
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

function duplicateIdResponse(id) {
  return errorResponse(id, INVALID_REQUEST, 'Invalid Request', { code: 'request_id_in_flight' });
}

/** The ids of one session: claimed when read, delivered to the server, released when answered. */
class InFlightIds {
  // id -> whether the request reached the server (false: claimed, not delivered yet)
  #ids = new SafeMap();

  /**
   * Claims the request ids of `messages` (one message or a batch): `{ claimed, duplicate }`,
   * where `duplicate` is the first id already in flight (then nothing stays claimed).
   */
  claim(messages) {
    const claimed = [];
    for (let i = 0; i < messages.length; i++) {
      const id = requestIdOf(messages[i]);
      if (id === undefined) continue;
      if (MapPrototypeHas(this.#ids, id)) {
        this.settle(claimed);
        return { __proto__: null, claimed: [], duplicate: id };
      }
      MapPrototypeSet(this.#ids, id, false);
      claimed[claimed.length] = id;
    }
    return { __proto__: null, claimed, duplicate: undefined };
  }

  /** Claims `id` (a request id, as requestIdOf reads it): false when it is already in flight (nothing claimed). */
  claimId(id) {
    if (MapPrototypeHas(this.#ids, id)) return false;
    MapPrototypeSet(this.#ids, id, false);
    return true;
  }

  delivered(id) {
    if (MapPrototypeHas(this.#ids, id)) MapPrototypeSet(this.#ids, id, true);
  }

  /** Frees the claimed ids that never reached the server (a request the SDK refused itself). */
  settle(claimed) {
    for (let i = 0; i < claimed.length; i++) {
      if (MapPrototypeGet(this.#ids, claimed[i]) === false) MapPrototypeDelete(this.#ids, claimed[i]);
    }
  }

  release(id) {
    MapPrototypeDelete(this.#ids, id);
  }
}

module.exports = { InFlightIds, requestIdOf, answeredIdOf, duplicateIdResponse };
