// ESLint rule `layers/code-layering`: an import may only go down the layers of scripts/eslint/code-layers.mjs
// (as VS Code's `code-layering` rule does for its own folders). Relative specifiers only: packages are other rules'.
import { dirname, relative, resolve, sep } from 'node:path';
import { COMPOSERS, LAYERS, layerOf } from './code-layers.mjs';

function repoPath(root, absolute) {
  return relative(root, absolute).split(sep).join('/');
}

/** @type {import('eslint').Rule.RuleModule} */
const codeLayering = {
  meta: {
    type: 'problem',
    docs: { description: 'Imports in main/ only go down the layers written in README "Layout".' },
    schema: [],
    messages: {
      upward: '{{from}} ({{fromLayer}}) may not import {{to}} ({{toLayer}}): {{fromLayer}} may use {{allowed}}.',
      composer: '{{from}} may not import {{to}}: it composes the handlers, so importing it closes a cycle.',
      handlers: "{{from}} may not import {{to}}: another capability's handlers are for the app and the front ends.",
    },
  },
  create(context) {
    const root = context.cwd;
    const from = repoPath(root, context.filename);
    const source = layerOf(from);
    if (!source) return {};

    function check(node) {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const to = repoPath(root, resolve(dirname(context.filename), spec)).replace(/\.js$/, '.ts');
      const target = layerOf(to);
      if (!target) return;
      const data = { from, to, fromLayer: source.layer, toLayer: target.layer };
      if (source.handlers && COMPOSERS.includes(to)) {
        context.report({ node: node.source, messageId: 'composer', data });
        return;
      }
      if (target.handlers && from.startsWith('main/core/') && source.layer !== 'app' && source.layer !== target.layer) {
        context.report({ node: node.source, messageId: 'handlers', data });
        return;
      }
      if (target.layer === source.layer) return;
      const allowed = [...(LAYERS[source.layer] ?? []), ...(source.handlers ? [source.layer, 'app'] : [])];
      if (allowed.includes(target.layer)) return;
      context.report({
        node: node.source,
        messageId: 'upward',
        data: { ...data, allowed: allowed.length > 0 ? allowed.join(', ') : 'nothing outside itself' },
      });
    }

    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default { rules: { 'code-layering': codeLayering } };
