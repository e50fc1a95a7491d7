/**
 * The members of a public type that its users read about: the properties
 * and methods of an interface, of the object types a type alias is written
 * as, and the public members of a class.
 */
import ts from "typescript";

/** One member name of one object type, with every declaration of it there (overloads, a getter and its setter). */
export interface MemberGroup {
  /** The member's name as written (`signal`, `"content-type"`). */
  name: string;
  /** Its declarations in this object type, in source order; overload implementations left out. */
  declarations: ts.Declaration[];
}

/**
 * The members declared directly by `declaration`, grouped by name within each
 * object type: for an interface, its property and method signatures; for a
 * type alias, those of the object literal type it is written as (through
 * intersections and parentheses); for a class, its properties, methods and
 * accessors that are neither `private`, `protected` nor `#private`.
 *
 * Not listed: members of object shapes inside a union (`{ ok: true; event } |
 * { ok: false; errors }`: the alias's comment describes its variants, and
 * their discriminants need no comment each), members inherited or reached
 * through another named type (that type is checked where it is exported),
 * members with a computed name (`[ERROR_MARKER]`, the plumbing of
 * `isInstance`), constructors, index and call signatures.
 */
export function listMemberGroups(declaration: ts.Declaration): MemberGroup[] {
  if (ts.isInterfaceDeclaration(declaration)) return group(declaration.members.filter(isNamedSignature));
  if (ts.isTypeAliasDeclaration(declaration))
    return objectLiterals(declaration.type).flatMap((literal) => group(literal.members.filter(isNamedSignature)));
  if (ts.isClassDeclaration(declaration)) return group(declaration.members.filter(isPublicClassMember));
  return [];
}

function isNamedSignature(member: ts.TypeElement): member is ts.PropertySignature | ts.MethodSignature {
  return ts.isPropertySignature(member) || ts.isMethodSignature(member);
}

function isPublicClassMember(member: ts.ClassElement): member is ts.ClassElement & { name: ts.PropertyName } {
  const kind =
    ts.isPropertyDeclaration(member) ||
    ts.isMethodDeclaration(member) ||
    ts.isGetAccessorDeclaration(member) ||
    ts.isSetAccessorDeclaration(member);
  if (!kind || member.name === undefined || ts.isPrivateIdentifier(member.name)) return false;
  const hidden = ts.getCombinedModifierFlags(member) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected);
  return hidden === 0;
}

function objectLiterals(type: ts.TypeNode): ts.TypeLiteralNode[] {
  if (ts.isTypeLiteralNode(type)) return [type];
  if (ts.isParenthesizedTypeNode(type)) return objectLiterals(type.type);
  if (ts.isIntersectionTypeNode(type)) return type.types.flatMap(objectLiterals);
  return [];
}

function group(members: readonly (ts.NamedDeclaration & { name?: ts.PropertyName })[]): MemberGroup[] {
  const byName = new Map<string, ts.Declaration[]>();
  for (const member of members) {
    if (!member.name || ts.isComputedPropertyName(member.name)) continue;
    const name = member.name.getText();
    byName.set(name, [...(byName.get(name) ?? []), member]);
  }
  return [...byName].map(([name, declarations]) => ({
    name,
    declarations: withoutOverloadImplementations(declarations),
  }));
}

/**
 * `declarations` without the implementation of an overloaded function or
 * method: callers see only the overload signatures, so only their comments
 * count. A lone function with a body is its own signature and stays.
 */
export function withoutOverloadImplementations(declarations: readonly ts.Declaration[]): ts.Declaration[] {
  const isImplementation = (declaration: ts.Declaration) =>
    (ts.isFunctionDeclaration(declaration) || ts.isMethodDeclaration(declaration)) && declaration.body !== undefined;
  const hasSignatures = declarations.some(
    (declaration) =>
      (ts.isFunctionDeclaration(declaration) || ts.isMethodDeclaration(declaration)) && !isImplementation(declaration),
  );
  return hasSignatures ? declarations.filter((declaration) => !isImplementation(declaration)) : [...declarations];
}
