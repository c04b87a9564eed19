// Prompt files (`*.prompt.md`): front matter, inputs, context variables, and the bounds on what a file may be.
import * as assert from 'node:assert/strict';
import {
  CUT_NOTE,
  fillPrompt,
  isPromptFileName,
  MAX_DESCRIPTION_CHARS,
  MAX_PROMPT_BYTES,
  MAX_PROMPT_INPUTS,
  parsePromptFile,
} from '../../../src/composer/promptFiles';

describe('prompt files', () => {
  describe('names', () => {
    it('knows a prompt file by its .prompt.md suffix, with a name before it', () => {
      assert.equal(isPromptFileName('review.prompt.md'), true);
      assert.equal(isPromptFileName('/w/.github/prompts/Review.PROMPT.md'), true);
      assert.equal(isPromptFileName('C:\\w\\prompts\\a.prompt.md'), true);
      assert.equal(isPromptFileName('.prompt.md'), false);
      assert.equal(isPromptFileName('review.md'), false);
      assert.equal(isPromptFileName('review.prompt.md.bak'), false);
    });

    it('names a prompt after its file, without the suffix or the folders', () => {
      assert.equal(parsePromptFile('review.prompt.md', '').name, 'review');
      assert.equal(parsePromptFile('/w/prompts/fix-tests.prompt.md', '').name, 'fix-tests');
    });
  });

  describe('front matter', () => {
    it('reads the description, quoted or not, and leaves the rest as the body', () => {
      for (const [line, want] of [
        ['description: Review the code', 'Review the code'],
        ["description: 'It''s a review'", "It's a review"],
        ['description: "Say \\"hi\\""', 'Say "hi"'],
        ['description: Review # a comment', 'Review'],
        ['description: "Keep # this"', 'Keep # this'],
      ] as const) {
        const file = parsePromptFile('r.prompt.md', `---\n${line}\nmode: agent\ntools: ['a', 'b']\n---\nThe body\n`);
        assert.equal(file.description, want, line);
        assert.equal(file.body, 'The body\n');
      }
    });

    it('reads a multi-line description (block scalar, list values) onto one line', () => {
      const file = parsePromptFile('r.prompt.md', '---\ndescription: >\n  Review the\n  whole file\ntools:\n  - read\n  - edit\n---\nBody');
      assert.equal(file.description, 'Review the whole file');
      assert.equal(file.body, 'Body');
    });

    it('takes a file without front matter as all body', () => {
      const file = parsePromptFile('r.prompt.md', '# Review\n\ndescription: not front matter\n');
      assert.equal(file.description, undefined);
      assert.equal(file.body, '# Review\n\ndescription: not front matter\n');
    });

    it('takes unterminated or malformed front matter as body text', () => {
      const unterminated = '---\ndescription: x\nno end here';
      assert.deepEqual(parsePromptFile('r.prompt.md', unterminated), { name: 'r', body: unterminated, inputs: [] });
      const malformed = '---\nthis is not yaml at all\n---\nBody';
      assert.deepEqual(parsePromptFile('r.prompt.md', malformed), { name: 'r', body: malformed, inputs: [] });
      const late = '\n---\ndescription: x\n---\nBody';
      assert.equal(parsePromptFile('r.prompt.md', late).body, late, 'front matter only at the very top');
    });

    it('reads CRLF files (and a BOM) like LF ones, and gives the body LF line endings', () => {
      const file = parsePromptFile('r.prompt.md', '\ufeff---\r\ndescription: "Crlf"\r\n---\r\nLine 1\r\nLine 2 ${input:who}\r\n');
      assert.equal(file.description, 'Crlf');
      assert.equal(file.body, 'Line 1\nLine 2 ${input:who}\n');
      assert.deepEqual(file.inputs, [{ name: 'who' }]);
    });

    it('keeps a description on one line, within its bound', () => {
      const file = parsePromptFile('r.prompt.md', `---\ndescription: ${'word '.repeat(100)}\n---\n`);
      assert.ok(file.description);
      assert.ok(file.description.length <= MAX_DESCRIPTION_CHARS, `${file.description.length}`);
      assert.ok(file.description.endsWith('…'));
      assert.ok(!file.description.includes('\n'));
      assert.equal(parsePromptFile('r.prompt.md', '---\ndescription: ""\n---\n').description, undefined, 'an empty one is none');
    });
  });

  describe('inputs', () => {
    it('lists each input once, in order, with its placeholder when it has one', () => {
      const file = parsePromptFile(
        'r.prompt.md',
        'Review ${input:file:Which file?} for ${input:concern}, then ${input:file} again ${input:concern:What?}',
      );
      assert.deepEqual(file.inputs, [
        { name: 'file', placeholder: 'Which file?' },
        { name: 'concern', placeholder: 'What?' },
      ]);
    });

    it('replaces every occurrence of an input with the same value, and fills the context', () => {
      const file = parsePromptFile(
        'r.prompt.md',
        'Fix ${input:bug:the bug} in ${fileBasename} (${file}, ${fileDirname}, ${fileBasenameNoExtension}).\n' +
          'The bug: ${input:bug}. Code: ${selection} / ${selectedText}. Root: ${workspaceFolder} (${workspaceFolderBasename})',
      );
      const filled = fillPrompt(file, { bug: 'off by one' }, { selection: 'let i = 0', file: '/w/src/a.ts', workspaceFolder: '/w' });
      assert.equal(filled, 'Fix off by one in a.ts (/w/src/a.ts, /w/src, a).\nThe bug: off by one. Code: let i = 0 / let i = 0. Root: /w (w)');
    });

    it('empties missing values and context, keeps unknown variables, and never expands a value again', () => {
      const file = parsePromptFile('r.prompt.md', '${input:a}|${input:b}|${selection}|${file}|${foo}|${env:HOME}|${input:a}');
      assert.equal(fillPrompt(file, { a: '${file}' }, {}), '${file}||||${foo}|${env:HOME}|${file}');
    });

    it('does not take an inherited property for a value', () => {
      const file = parsePromptFile('r.prompt.md', '[${input:constructor}] [${input:toString}]');
      assert.equal(fillPrompt(file, {}, {}), '[] []');
    });

    it('survives odd variables', () => {
      const text = '$${input:x} ${input:} ${input::p} ${} ${ ${input:y ${input:z:a:b} ${{input:w}} $ {input:v} ${input:x}}';
      const file = parsePromptFile('r.prompt.md', text);
      assert.deepEqual(file.inputs, [{ name: 'x' }, { name: 'z', placeholder: 'a:b' }]);
      assert.equal(fillPrompt(file, { x: 'X', z: 'Z' }, {}), '$X ${input:} ${input::p} ${} ${ ${input:y Z ${{input:w}} $ {input:v} X}');
    });

    it('asks at most a bounded number of inputs', () => {
      const body = Array.from({ length: 30 }, (_, i) => `\${input:n${i}}`).join(' ');
      const file = parsePromptFile('r.prompt.md', body);
      assert.equal(file.inputs.length, MAX_PROMPT_INPUTS);
      assert.equal(file.inputs[MAX_PROMPT_INPUTS - 1]?.name, `n${MAX_PROMPT_INPUTS - 1}`);
      assert.equal(fillPrompt(file, { n0: 'a', n29: 'z' }, {}).split(' ')[29], 'z', 'a value given for a later one is still used');
    });
  });

  describe('bounds', () => {
    it('cuts a huge file with a note, never inside a character', () => {
      const file = parsePromptFile('r.prompt.md', `${'a'.repeat(MAX_PROMPT_BYTES - 1)}😀 and more`);
      assert.ok(file.body.endsWith(CUT_NOTE));
      const kept = file.body.slice(0, -CUT_NOTE.length);
      assert.equal(kept, 'a'.repeat(MAX_PROMPT_BYTES - 1), 'the emoji cut in two is dropped');
      assert.equal(parsePromptFile('r.prompt.md', 'a'.repeat(MAX_PROMPT_BYTES)).body, 'a'.repeat(MAX_PROMPT_BYTES), 'at the bound: whole');
    });

    it('parses a large file in linear time', () => {
      const text = `---\ndescription: x\n---\n${'${input:a '.repeat(20_000)}${'$'.repeat(50_000)}${'{'.repeat(50_000)}`;
      const started = Date.now();
      const file = parsePromptFile('r.prompt.md', text);
      fillPrompt(file, {}, {});
      assert.ok(Date.now() - started < 1000);
    });
  });
});
