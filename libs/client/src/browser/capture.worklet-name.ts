/** The capture worklet's registered name, apart from the worklet so the main thread need not load it. */
export const CAPTURE_PROCESSOR = 'continuum-pcm16-capture';
