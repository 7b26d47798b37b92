'use strict';
// The adapters' helpers under the names they have always been required by ('./shared'):
// each now lives in the gate kernel (adapters/gate/), one concern a file. Not exported
// from package.json.

const { ObjectFreeze } = require('./gate/primordials');
const { requirePeer, peerModule } = require('./gate/peer');
const { invalidArgument, own, ownArray, setData, ownDataCopy, readOptions, isWellFormedString } = require('./gate/read');
const { approvedWithoutGrantNotice, APPROVED_WITHOUT_GRANT, WARNING_CODE } = require('./gate/warnings');
const { noPendingProposalError, NO_PENDING_PROPOSAL } = require('./gate/proposals');
const { jsonSchemaRefusesNull, jsonSchemaLocalRef } = require('./gate/json-schema');

module.exports = ObjectFreeze({
  requirePeer,
  peerModule,
  invalidArgument,
  own,
  ownArray,
  setData,
  ownDataCopy,
  readOptions,
  isWellFormedString,
  approvedWithoutGrantNotice,
  APPROVED_WITHOUT_GRANT,
  WARNING_CODE,
  noPendingProposalError,
  NO_PENDING_PROPOSAL,
  jsonSchemaRefusesNull,
  jsonSchemaLocalRef,
});
