import * as assert from 'node:assert/strict';
import { resolveVariables, shellLine, type TaskVariables } from '../../../src/editorTools/taskLine';

const vars: TaskVariables = {
  folder: '/work/app',
  folders: new Map([
    ['app', '/work/app'],
    ['lib', '/work/lib'],
  ]),
  home: '/home/me',
  env: { NODE_ENV: 'test' },
  separator: '/',
  config: (key) => (key === 'editor.tabSize' ? '2' : undefined),
};

describe('task lines', () => {
  it('resolves the variables that need neither the editor nor the user', () => {
    assert.deepEqual(
      resolveVariables(
        'cd ${workspaceFolder:lib} && ${userHome}${/}bin/run ${workspaceFolderBasename} ${env:NODE_ENV}${env:NONE} ${config:editor.tabSize} ${cwd}',
        vars,
      ),
      { text: 'cd /work/lib && /home/me/bin/run app test 2 /work/app' },
    );
    assert.deepEqual(resolveVariables('no variables', vars), { text: 'no variables' });
  });

  it('leaves to VS Code a task with a variable that needs the editor or the user', () => {
    assert.deepEqual(resolveVariables('lint ${file} ${workspaceFolder}', vars), { unresolved: '${file}' });
    assert.deepEqual(resolveVariables('deploy ${input:target}', vars), { unresolved: '${input:target}' });
    assert.deepEqual(resolveVariables('${config:not.a.string}', vars), { unresolved: '${config:not.a.string}' });
    assert.deepEqual(resolveVariables('${workspaceFolder:nope}', vars), { unresolved: '${workspaceFolder:nope}' });
    assert.deepEqual(resolveVariables('x', { ...vars, folder: undefined }), { text: 'x' });
    assert.deepEqual(resolveVariables('${workspaceFolder}', { ...vars, folder: undefined }), { unresolved: '${workspaceFolder}' });
  });

  it('joins a command and its arguments, quoting those with spaces or quotes', () => {
    assert.equal(shellLine('npm', ['run', 'build'], false), 'npm run build');
    assert.equal(shellLine('echo', ['a b', "it's", ''], false), `echo 'a b' 'it'\\''s' ''`);
    assert.equal(shellLine('echo', ['a b', 'say "hi"'], true), 'echo "a b" "say ""hi"""');
  });
});
