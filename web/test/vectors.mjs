// Reads tests/vectors/envelope.json and checks one vector in both directions.
import assert from 'node:assert/strict';
import * as envelope from '../src/envelope.js';

export function loadVectors(json) {
  const parsed = JSON.parse(json);
  return Array.isArray(parsed) ? parsed : parsed.vectors;
}

export async function checkVector(vector) {
  throw new Error(`vector format not implemented yet: ${Object.keys(vector)}`);
}
