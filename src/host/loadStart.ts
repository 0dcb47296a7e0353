/**
 * When the bundle began evaluating: extension.ts imports this module first, so its body runs before any other
 * module's and activation can log what evaluating the bundle cost (reading and compiling the file come before).
 */
export const loadStart = performance.now();
