// Which of a user's files are bundled as CommonJS: those written so, whatever their package says.
import { describe, expect, it } from 'vitest';
import { writtenAsCommonJs } from '../src/harness/user-module/commonjs.js';

describe('writtenAsCommonJs', () => {
  it.each([
    ['module.exports', "const { DBOS } = require('@dbos-inc/dbos-sdk');\nmodule.exports = { createWorkflow };"],
    ['exports.name =', 'exports.createGraph = (ctx) => graph(ctx);'],
    ['require() with a dynamic import()', "const fs = require('node:fs');\nconst later = () => import('./x.js');"],
  ])('CommonJS: %s', (_what, text) => expect(writtenAsCommonJs(text)).toBe(true));

  it.each([
    ['an import statement beside require()', "import { tool } from '@langchain/core/tools';\nconst x = require('y');"],
    ['an export statement', "export const createGraph = () => require('./graph.cjs');"],
    ['export { }', "const m = require('x');\nexport { m };"],
    ['no CommonJS at all', "import './setup.js';\nconsole.log('hi');"],
    ['the words in a property only', 'const o = { a: this.module.exports };'],
  ])('not CommonJS: %s', (_what, text) => expect(writtenAsCommonJs(text)).toBe(false));
});
