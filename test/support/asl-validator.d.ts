declare module 'asl-validator' {
  /** Validates an Amazon States Language definition: `isValid` and the errors found. */
  export default function validator(
    definition: unknown,
    options?: { checkPaths?: boolean; checkArn?: boolean },
  ): { isValid: boolean; errors: { message: string }[] };
}
