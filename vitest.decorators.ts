import ts from "typescript";
import type { Plugin } from "vite";

/**
 * Vite 8 transforms TypeScript with Oxc, which strips types but does not
 * lower TC39 (stage 3) decorators (oxc-project/oxc#9170), and Node 20 cannot
 * run them. `@bindTool` is such a decorator, so a file that uses decorator
 * syntax is first lowered by the TypeScript compiler (target ES2022, standard
 * decorators: the same semantics tsc checks and tsup/esbuild emit), then
 * handed on to Oxc as plain JavaScript.
 */
export const lowerStandardDecorators: Plugin = {
  name: "turnkit:lower-standard-decorators",
  enforce: "pre",
  transform(code, id) {
    const file = id.split("?")[0];
    if (!/\.[cm]?tsx?$/.test(file) || !/^\s*@[A-Za-z_$][\w$.]*\s*(\(|$|\s)/m.test(code)) return null;
    const out = ts.transpileModule(code, {
      fileName: file,
      compilerOptions: {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        verbatimModuleSyntax: true,
        sourceMap: true,
        inlineSources: true,
      },
    });
    return { code: out.outputText.replace(/\/\/# sourceMappingURL=.*$/m, ""), map: out.sourceMapText };
  },
};
